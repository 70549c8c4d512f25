import { defaultRailRoutes, formatRailRoutes, parseRailRoutes, routeFor, routesProblem } from '../../src/domain/rail-routes';

// Issue 45, live cards: which partner takes cards (RAIL_ROUTES, src/domain/rail-routes.ts).

const both = { momo: true, aggregator: true };

test('by default the aggregator takes cards only when it can (AGGREGATOR_ENCRYPTION_KEY set); the MoMo partner never', () => {
  expect(formatRailRoutes(defaultRailRoutes(both, true))).toBe('mobile_money:*=momo|aggregator,bank:*=aggregator,card:*=aggregator');
  expect(routeFor(defaultRailRoutes(both, false), 'card', 'GHS')).toBeNull();
  expect(routeFor(defaultRailRoutes({ momo: true, aggregator: false }, true), 'card', 'GHS')).toBeNull();
});

test('a route of cards to the MoMo partner, or to an aggregator without its encryption key, is refused at start with a sentence naming it', () => {
  expect(routesProblem(parseRailRoutes('card:*=momo'), both, true)).toMatch(/card:\* to momo: the mobile-money partner takes no cards/);
  expect(routesProblem(parseRailRoutes('card:GHS=aggregator'), both, false)).toMatch(/card:GHS to aggregator, but AGGREGATOR_ENCRYPTION_KEY is unset/);
  expect(routesProblem(parseRailRoutes('card:GHS=aggregator,bank:*=aggregator'), both, true)).toBeNull();
});
