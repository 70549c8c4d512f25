import { ALL_SCOPES, isScope, type Scope } from '../domain/scopes';
import { parseDuration } from '../domain/webhook-retry';
import { DEFAULT_ROLL_OVERLAP_MS, listKeys, rollKey } from '../persistence/merchants/api-key-store';
import { issueKey, revokeKey } from '../persistence/merchants/merchant-store';
import { act, type CliCommand } from './command';
import { withDatabase } from './connect';
import { changeActor, OPERATOR_HELP, parseEnv, UsageError } from './shared';

/** No `--scopes`: every scope. A given `--scopes` must name at least one: `--scopes ""` is an error, never every scope. */
function parseScopes(raw: string | undefined): Scope[] {
  if (raw === undefined) return [...ALL_SCOPES];
  const scopes = raw.split(',').map((s) => s.trim()).filter(Boolean);
  if (scopes.length === 0) throw new UsageError(`--scopes needs at least one scope (known: ${ALL_SCOPES.join(' ')}); leave it out for a key with every scope`);
  const unknown = scopes.filter((s) => !isScope(s));
  if (unknown.length) throw new UsageError(`unknown scope(s): ${unknown.join(', ')}; known: ${ALL_SCOPES.join(' ')}`);
  return scopes as Scope[];
}

/** `--expires-in` of `keys roll`: a duration from 0s to 7d; default 24h. */
function rollOverlap(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_ROLL_OVERLAP_MS;
  let ms: number;
  try {
    ms = parseDuration(raw);
  } catch {
    throw new UsageError('--expires-in must be a duration like 30m, 24h or 7d');
  }
  if (ms > 7 * 24 * 3600_000) throw new UsageError('--expires-in is at most 7d');
  return ms;
}

const KEY_REASON_HELP = 'why, for the audit log (default: the command)';

/** `cli keys create|roll|revoke|list`: a merchant's API keys; every change audited. */
export function addKeyCommands(program: CliCommand): void {
  const keys = program.command('keys').description("a merchant's API keys (every change audited)");
  const create = keys
    .command('create')
    .description('a new API key; its secret is printed once')
    .option('--merchant <MERCHANT_ID>', 'the merchant')
    .option('--env <ENV>', 'test or live')
    .option('--scopes <a,b>', `what the key may do (default: every scope: ${ALL_SCOPES.join(' ')})`)
    .option('--reason <TEXT>', KEY_REASON_HELP)
    .option('--operator <NAME>', OPERATOR_HELP);
  act(create, async (config, values) => {
    if (!values.merchant) throw new UsageError('--merchant is required');
    const merchant = values.merchant;
    const env = parseEnv(values.env);
    const scopes = parseScopes(values.scopes);
    const actor = changeActor(values, 'keys create');
    const key = await withDatabase(config, (orm) => issueKey(orm, merchant, env, scopes, actor));
    return { id: key.id, secret: key.secret, scopes: key.scopes };
  });
  const roll = keys
    .command('roll')
    .description('a new secret for the key; the old one works until --expires-in')
    .requiredArgument('KEY_ID', 'the key', 'key id is required')
    .option('--expires-in <DURATION>', 'how long the old secret still works: 0s to 7d (default 24h)')
    .option('--reason <TEXT>', KEY_REASON_HELP)
    .option('--operator <NAME>', OPERATOR_HELP);
  act(roll, (config, values, [id]) => {
    const overlapMs = rollOverlap(values.expiresIn);
    const actor = changeActor(values, 'keys roll');
    return withDatabase(config, (orm) => rollKey(orm, id!, overlapMs, actor));
  });
  const revoke = keys
    .command('revoke')
    .description('the key stops working now')
    .requiredArgument('KEY_ID', 'the key', 'key id is required')
    .option('--reason <TEXT>', KEY_REASON_HELP)
    .option('--operator <NAME>', OPERATOR_HELP);
  act(revoke, (config, values, [id]) => {
    const actor = changeActor(values, 'keys revoke');
    return withDatabase(config, (orm) => revokeKey(orm, id!, actor));
  });
  const list = keys.command('list').description("the merchant's keys (never their secrets)").option('--merchant <MERCHANT_ID>', 'the merchant');
  act(list, (config, values) => {
    if (!values.merchant) throw new UsageError('--merchant is required');
    const merchant = values.merchant;
    return withDatabase(config, (orm) => listKeys(orm, merchant));
  });
}
