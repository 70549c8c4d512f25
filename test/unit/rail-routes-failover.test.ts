import { formatRailRoutes, merchantRouteOf, parseRailRoutes, routeFor, routeOf, routeOrder, routesProblem } from '../../src/domain/rail-routes';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { failoverCause, nextPartner, parseRailRoute } from '../../src/domain/rail-failover';
import { MOMO_RETRY_ELSEWHERE, momoRetryElsewhere } from '../../src/rail/momo-reasons';

// Issue 46: routes with an order and weights (RAIL_ROUTES), and the failover gate's rule.

const both = { momo: true, aggregator: true };

test('a route names partners in failover order, with weights for every partner or none; its text form reads back the same', () => {
  const routes = parseRailRoutes('mobile_money:GHS=momo:3|aggregator:1,mobile_money:*=aggregator|momo,bank:*=aggregator');
  expect(routeOf(routes, 'mobile_money', 'GHS')?.legs).toEqual([{ partner: 'momo', weight: 3 }, { partner: 'aggregator', weight: 1 }]);
  expect(routeFor(routes, 'mobile_money', 'KES')).toBe('aggregator');
  expect(formatRailRoutes(routes)).toBe('mobile_money:GHS=momo:3|aggregator:1,mobile_money:*=aggregator|momo,bank:*=aggregator');
  expect(parseRailRoutes('mobile_money:*=momo')).toEqual(parseRailRoutes('mobile_money:*=momo'));
});

test('what a route cannot say is refused with a sentence naming it', () => {
  expect(() => parseRailRoutes('mobile_money:*=momo|momo')).toThrow(/momo is named twice/);
  expect(() => parseRailRoutes('mobile_money:*=momo:3|aggregator')).toThrow(/give every partner of a route a weight, or none/);
  expect(() => parseRailRoutes('mobile_money:*=momo:0|aggregator:0')).toThrow(/at least one weight must be above 0/);
  expect(() => parseRailRoutes('mobile_money:*=momo:1001|aggregator:1')).toThrow(/from 0 to 1000/);
  expect(() => parseRailRoutes('mobile_money:*=momo|paypal')).toThrow(/the partner must be one of momo, aggregator/);
  expect(routesProblem(parseRailRoutes('card:*=aggregator|momo'), both, true)).toMatch(/card:\* to momo/);
  expect(routesProblem(parseRailRoutes('mobile_money:*=momo|aggregator'), { momo: true, aggregator: false })).toMatch(/to aggregator, which this start does not have \(AGGREGATOR_BASE_URL unset\)/);
});

test('the first partner: by weight among those whose breaker admits new payments; the others follow in the order written', () => {
  const [route] = parseRailRoutes('mobile_money:*=momo:3|aggregator:1');
  const all = () => true;
  expect(routeOrder(route, 0, all)).toEqual(['momo', 'aggregator']);
  expect(routeOrder(route, 0.74, all)).toEqual(['momo', 'aggregator']);
  expect(routeOrder(route, 0.75, all)).toEqual(['aggregator', 'momo']);
  expect(routeOrder(route, 0.999, all)).toEqual(['aggregator', 'momo']);
  // MoMo's breaker open: the aggregator first, MoMo kept as a fallback.
  expect(routeOrder(route, 0, (p) => p !== 'momo')).toEqual(['aggregator', 'momo']);
  // No weights: the first admitted as written.
  const [plain] = parseRailRoutes('mobile_money:*=momo|aggregator');
  expect(routeOrder(plain, 0.9, all)).toEqual(['momo', 'aggregator']);
  expect(routeOrder(plain, 0.9, (p) => p === 'aggregator')).toEqual(['aggregator', 'momo']);
  // None admitted: as written (a breaker is a guess; the payment still goes out).
  expect(routeOrder(plain, 0.9, () => false)).toEqual(['momo', 'aggregator']);
  // Weight 0: a fallback only.
  const [fallback] = parseRailRoutes('mobile_money:*=momo:1|aggregator:0');
  for (const draw of [0, 0.5, 0.999]) expect(routeOrder(fallback, draw, all)[0]).toBe('momo');
});

test('the gate\'s rule: only an attempt that provably moved no money may be left', () => {
  const facts = { sends: 1, unreached: 0, refusedElsewhere: null, acknowledged: false };
  expect(failoverCause({ ...facts, unreached: 1 })).toEqual({ cause: 'not_reached' });
  expect(failoverCause({ ...facts, sends: 3, unreached: 3 })).toEqual({ cause: 'not_reached' });
  expect(failoverCause({ ...facts, refusedElsewhere: 'SERVICE_DECLINING' })).toEqual({ cause: 'refused' });
  expect(failoverCause({ ...facts, sends: 3, unreached: 2, refusedElsewhere: 'SERVICE_DECLINING' })).toEqual({ cause: 'refused' });
  // A send that may have arrived (a timeout, a 5xx) beside the refusal: the partner may have it.
  expect(failoverCause({ ...facts, sends: 2, unreached: 0, refusedElsewhere: 'SERVICE_DECLINING' })).toMatchObject({ why: expect.stringContaining('may have reached the partner') });
  expect(failoverCause({ ...facts, sends: 2, unreached: 1 })).toMatchObject({ why: expect.stringContaining('1 of its 2 submission(s) may have reached the partner') });
  expect(failoverCause(facts)).toMatchObject({ why: expect.any(String) });
  expect(failoverCause({ ...facts, sends: 0 })).toEqual({ why: 'nothing was sent with the reference yet' });
  // Acknowledged (accepted, duplicate, PENDING, SUCCESSFUL): never, whatever else.
  expect(failoverCause({ sends: 1, unreached: 1, refusedElsewhere: 'X', acknowledged: true })).toMatchObject({ why: expect.stringContaining('acknowledged') });
});

test('the next partner: the first of the payment\'s route not tried yet whose breaker admits it', async () => {
  expect(parseRailRoute('momo,aggregator')).toEqual(['momo', 'aggregator']);
  expect(parseRailRoute(null)).toEqual([]);
  expect(await nextPartner(['momo', 'aggregator'], ['momo'], async () => true)).toBe('aggregator');
  expect(await nextPartner(['momo', 'aggregator'], ['momo'], async (p) => p !== 'aggregator')).toBeNull();
  expect(await nextPartner(['momo', 'aggregator'], ['momo', 'aggregator'], async () => true)).toBeNull();
  expect(await nextPartner(['momo'], ['momo'], async () => true)).toBeNull();
});

test('a merchant\'s own route takes the place of the start\'s of its channel and currency, keeping only partners the start has', () => {
  const start = parseRailRoutes('mobile_money:*=momo|aggregator,bank:*=aggregator');
  expect(merchantRouteOf(start, parseRailRoutes('mobile_money:GHS=aggregator'), 'mobile_money', 'GHS')?.legs.map((l) => l.partner)).toEqual(['aggregator']);
  expect(merchantRouteOf(start, parseRailRoutes('mobile_money:GHS=aggregator'), 'mobile_money', 'KES')?.legs.map((l) => l.partner)).toEqual(['momo', 'aggregator']);
  expect(merchantRouteOf(start, null, 'bank', 'GHS')?.partner).toBe('aggregator');
  const momoOnly = parseRailRoutes('mobile_money:*=momo');
  expect(merchantRouteOf(momoOnly, parseRailRoutes('mobile_money:*=aggregator:1|momo:0'), 'mobile_money', 'GHS')?.legs.map((l) => l.partner)).toEqual(['momo']);
  expect(merchantRouteOf(momoOnly, parseRailRoutes('mobile_money:*=aggregator|momo'), 'mobile_money', 'GHS')?.legs.map((l) => l.partner)).toEqual(['momo']);
});

test('docs/partner-rail.md\'s Reasons table marks retry-elsewhere exactly the reasons of MOMO_RETRY_ELSEWHERE', () => {
  const doc = readFileSync(path.join(__dirname, '../../docs/partner-rail.md'), 'utf8');
  const table = doc.slice(doc.indexOf('| Partner reason | failure_class | Retry elsewhere'));
  const rows = table.slice(0, table.indexOf('\n\n')).split('\n').slice(2).map((row) => row.split('|').slice(1, -1).map((cell) => cell.trim()));
  const marked = rows.filter((r) => r[2].startsWith('yes')).flatMap((r) => [...r[0].matchAll(/`([A-Z_]+)`/g)].map((m) => m[1]));
  expect(marked.sort()).toEqual([...MOMO_RETRY_ELSEWHERE].sort());
  expect(momoRetryElsewhere(' service_unavailable ')).toBe(true);
  expect(momoRetryElsewhere('NOT_ENOUGH_FUNDS')).toBe(false);
});
