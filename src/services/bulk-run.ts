import type { OperatorInput, OperatorTarget } from './operator-input';
import { isIdOf } from '../domain/ids';
import { claimSelection, findSelection, saveSelection } from '../persistence/operators/bulk-selection-store';
import type { Orm } from '../persistence/orm';
import { newId } from '../support/new-id';
import type { TemporalHandle } from '../temporal/connection';
import { readIdsFile, writeIdsFile } from './bulk-ids-file';
import { applyInBulk, bulkRate, dryRun, selectPayments, stillSelected } from './bulk-operator';
import { bulkPolicyOf } from './bulk-policy';
import { bulkQuery } from './bulk-query';
import { BULK_TOKEN_TTL_MS, bulkParams, checkListing, expectRefusal, idsOfTheSet, MAX_BULK_SELECTION, tokenRefusal } from './bulk-selection';

/**
 * One bulk operator command (issue 31, finding 1): the dry run that makes the token, or the `--yes`
 * that acts on the token's set only (or the part of it an ids file names). Every refusal here comes before anything
 * is done.
 */

export const YES_WITHOUT_SET =
  '--yes acts only on the set a dry run showed: run the command without --yes, check what it prints, then repeat it with --yes --token opsel_… (the token it printed), optionally with --ids-file PATH (the ids it saved, shortened by hand to act on fewer)';

export const IDS_FILE_WITHOUT_TOKEN =
  "--ids-file goes with its dry run's --token opsel_… (printed by the dry run and written in the file's header): the token binds the command, its options, the query and the ids it showed";

interface BulkContext {
  orm: Orm;
  temporal: TemporalHandle;
  /** The settings of the run (the CLI's environment): BULK_ACTIONS_PER_SECOND. */
  env: NodeJS.ProcessEnv;
}

export async function runBulk(
  command: string,
  { orm, temporal, env }: BulkContext,
  target: OperatorTarget,
  input: OperatorInput,
  act: (id: string, batchId: string) => Promise<unknown>,
): Promise<unknown> {
  const policy = bulkPolicyOf(command);
  const client = temporal.client;
  const params = bulkParams(input);
  if (target.expect !== undefined && !(Number.isInteger(target.expect) && target.expect >= 0)) throw new Error('--expect must be a whole number (the live payments in the set)');

  if (!target.yes) {
    if (target.token !== undefined || target.idsFile !== undefined || target.expect !== undefined) throw new Error('--token, --ids-file and --expect go with --yes; without --yes the command is a dry run');
    if (target.query === undefined) throw new Error("a dry run needs --query 'a Temporal list query'");
    const query = bulkQuery(target.query, target.merchantId, policy.runs);
    const selected = await selectPayments(client, query, policy.runs, { reviews: policy.reviews === true });
    checkListing(selected, target.merchantId, policy.runs);
    if (selected.length > MAX_BULK_SELECTION) throw new Error(`the query selects ${selected.length} payments, more than ${MAX_BULK_SELECTION} at once: narrow it (e.g. --merchant, or a time range)`);
    // Payments the action cannot apply to (charges retry: one waiting for the partner) are reported, never in the token's set.
    const skipped = policy.skip ? selected.flatMap((p) => { const why = policy.skip!(p); return why === null ? [] : [{ id: p.id, why }]; }) : [];
    const left = new Set(skipped.map((p) => p.id));
    const kept = selected.filter((p) => !left.has(p.id));
    const saved = await saveSelection(
      orm,
      {
        token: newId('operatorSelection'),
        command,
        query,
        merchantId: target.merchantId ?? null,
        params,
        payments: kept.map(({ id, environment, merchant_id }) => ({ id, environment, merchant_id })),
        createdBy: input.operator,
      },
      BULK_TOKEN_TTL_MS,
    );
    const header = [`${command}: the ${kept.length} payments of dry run ${saved.token} by ${saved.createdBy} (expires ${saved.expiresAt.toISOString()})`, `query: ${query}`];
    const idsFile = target.saveIds === undefined ? undefined : await writeIdsFile(target.saveIds, saved.payments.map((p) => p.id), header);
    return dryRun(command, query, kept, { token: saved.token, expiresAt: saved.expiresAt, needsExpect: policy.movesMoney }, idsFile, skipped);
  }

  if (target.saveIds !== undefined) throw new Error('--save-ids goes with a dry run (without --yes)');
  // Issue 43: an ids file is acted on only under its dry run's token, which binds the command, its
  // options, the query and the ids; an ids file alone acted on ids no dry run had shown.
  if (target.token === undefined) throw new Error(target.idsFile === undefined ? YES_WITHOUT_SET : IDS_FILE_WITHOUT_TOKEN);
  const perSecond = bulkRate(env);

  const token = target.token;
  const selection = isIdOf('operatorSelection', token) ? await findSelection(orm, token) : null;
  const query = target.query === undefined ? undefined : bulkQuery(target.query, target.merchantId, policy.runs);
  const refusal = tokenRefusal(selection, token, { command, params, query, now: new Date() });
  if (refusal) throw new Error(refusal);
  const chosen = selection!;
  if (target.merchantId !== undefined && target.merchantId !== chosen.merchantId) throw new Error(`token ${token} was made for --merchant ${chosen.merchantId ?? '(none)'}, not ${target.merchantId}`);
  const payments = target.idsFile === undefined ? chosen.payments : idsOfTheSet(chosen, token, target.idsFile, await readIdsFile(target.idsFile));
  const expectProblem = expectRefusal(command, policy, payments, target.expect);
  if (expectProblem) throw new Error(expectProblem);
  const batchId = newId('operatorBatch');
  if (!(await claimSelection(orm, token, input.operator, batchId))) throw new Error(`token ${token} was used or expired a moment ago: run a new dry run`);
  const outcome = await applyInBulk({
    action: command,
    query: chosen.query,
    ids: payments.map((p) => p.id),
    batchId,
    recheck: (id) => stillSelected(client, chosen.query, id, chosen.merchantId, policy.runs),
    act,
    perSecond,
  });
  return { ...outcome, token, made_by: chosen.createdBy, ...(target.idsFile === undefined ? {} : { ids_file: target.idsFile }) };
}
