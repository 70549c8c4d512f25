import { isPartnerName, PARTNERS, type PartnerName } from '../domain/rail-routes';
import { drainPartner, resumePartner } from '../persistence/partner/partner-drain';
import { breakerSettingsFromEnv } from '../runtime/partner-health-settings';
import { partnerRoutingStatus, routingStatusTable } from '../services/partner-routing-status';
import { act, flag, type CliCommand } from './command';
import { withDatabase } from './connect';
import { auditedActor, OPERATOR_HELP, REASON_HELP, UsageError } from './shared';

/** The PARTNER argument: a live partner's name. */
function partnerArgument(raw: string | undefined): PartnerName {
  if (!isPartnerName(raw)) throw new UsageError(`unknown partner "${raw ?? ''}": one of ${PARTNERS.join(', ')}`);
  return raw;
}

/** `cli routing status|drain|resume`: the live partners' health and circuit breakers (docs/partner-rail.md, "Partner health and circuit breakers"). */
export function addRoutingCommands(program: CliCommand): void {
  const routing = program.command('routing').description("the live partners' health and circuit breakers: see them, take a partner out of new payments, bring it back (each audited)");
  const status = routing
    .command('status')
    .description("each partner's breaker (state, since) and its calls, success rate, error share and latency p50/p95 in the window (PARTNER_HEALTH_WINDOW_MS); a table, or JSON with --json")
    .option('--json', 'print JSON instead of the table');
  act(status, async (config, values, _args, { env }) => {
    const { windowMs } = breakerSettingsFromEnv(env);
    const answer = await withDatabase(config, (orm) => partnerRoutingStatus(orm, windowMs));
    return flag(values, 'json') ? answer : routingStatusTable(answer);
  });
  for (const verb of ['drain', 'resume'] as const) {
    const command = routing
      .command(verb)
      .description(
        verb === 'drain'
          ? 'take a partner out of the route choice: no new payment (and no failover) goes to it until `routing resume`; payments already with it go on there'
          : 'bring a partner back into the route choice (its breaker closed, whatever its state)',
      )
      .requiredArgument('PARTNER', `the partner (${PARTNERS.join(', ')})`, 'partner is required (momo or aggregator)')
      .option('--reason <TEXT>', REASON_HELP)
      .option('--operator <NAME>', OPERATOR_HELP);
    act(command, (config, values, [raw]) => {
      const partner = partnerArgument(raw);
      const actor = auditedActor(values);
      return withDatabase(config, (orm) => (verb === 'drain' ? drainPartner(orm, partner, actor) : resumePartner(orm, partner, actor)));
    });
  }
}
