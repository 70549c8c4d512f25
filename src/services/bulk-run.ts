import type { OperatorInput, OperatorTarget } from './operator-input';
import { isIdOf } from '../domain/ids';
import { claimSelection, findSelection, saveSelection } from '../persistence/operators/bulk-selection-store';
import type { Orm } from '../persistence/orm';
import { newId } from '../support/new-id';
import type { TemporalHandle } from '../temporal/connection';
import { readIdsFile, writeIdsFile } from './bulk-ids-file';
import { applyInBulk, bulkRate, dryRun, NO_LONGER_MATCHES, selectPayments, stillSelected } from './bulk-operator';
import { bulkPolicyOf } from './bulk-policy';
import { bulkQuery } from './bulk-query';
import { BULK_TOKEN_TTL_MS, bulkParams, checkListing, expectRefusal, MAX_BULK_SELECTION, tokenRefusal } from './bulk-selection';

/**
 * One bulk operator command (issue 31, finding 1): the dry run that makes the token, or the `--yes`
 * that acts on the token's (or the ids file's) set only. Every refusal here comes before anything
 * is done.
 */

export const YES_WITHOUT_SET =
  '--yes acts only on the set a dry run showed: run the command without --yes, check what it prints, then repeat it with --yes --token opsel_… (the token it printed), or --yes --ids-file PATH with its query';

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
    const selected = await selectPayments(client, query, policy.runs);
    checkListing(selected, target.merchantId, policy.runs);
    if (selected.length > MAX_BULK_SELECTION) throw new Error(`the query selects ${selected.length} payments, more than ${MAX_BULK_SELECTION} at once: narrow it (e.g. --merchant, or a time range)`);
    const saved = await saveSelection(
      orm,
      {
        token: newId('operatorSelection'),
        command,
        query,
        merchantId: target.merchantId ?? null,
        params,
        payments: selected.map(({ id, environment, merchant_id }) => ({ id, environment, merchant_id })),
        createdBy: input.operator,
      },
      BULK_TOKEN_TTL_MS,
    );
    const header = [`${command}: the ${selected.length} payments of dry run ${saved.token} by ${saved.createdBy} (expires ${saved.expiresAt.toISOString()})`, `query: ${query}`];
    const idsFile = target.saveIds === undefined ? undefined : await writeIdsFile(target.saveIds, saved.payments.map((p) => p.id), header);
    return dryRun(command, query, selected, { token: saved.token, expiresAt: saved.expiresAt, needsExpect: policy.movesMoney }, idsFile);
  }

  if (target.saveIds !== undefined) throw new Error('--save-ids goes with a dry run (without --yes)');
  if (target.token !== undefined && target.idsFile !== undefined) throw new Error('give --token or --ids-file, not both');
  if (target.token === undefined && target.idsFile === undefined) throw new Error(YES_WITHOUT_SET);
  const perSecond = bulkRate(env);

  if (target.token !== undefined) {
    const token = target.token;
    const selection = isIdOf('operatorSelection', token) ? await findSelection(orm, token) : null;
    const query = target.query === undefined ? undefined : bulkQuery(target.query, target.merchantId, policy.runs);
    const refusal = tokenRefusal(selection, token, { command, params, query, now: new Date() });
    if (refusal) throw new Error(refusal);
    const chosen = selection!;
    if (target.merchantId !== undefined && target.merchantId !== chosen.merchantId) throw new Error(`token ${token} was made for --merchant ${chosen.merchantId ?? '(none)'}, not ${target.merchantId}`);
    const expectProblem = expectRefusal(command, policy, chosen.payments, target.expect);
    if (expectProblem) throw new Error(expectProblem);
    const batchId = newId('operatorBatch');
    if (!(await claimSelection(orm, token, input.operator, batchId))) throw new Error(`token ${token} was used or expired a moment ago: run a new dry run`);
    const outcome = await applyInBulk({
      action: command,
      query: chosen.query,
      ids: chosen.payments.map((p) => p.id),
      batchId,
      recheck: (id) => stillSelected(client, chosen.query, id, chosen.merchantId, policy.runs),
      act,
      perSecond,
    });
    return { ...outcome, token, made_by: chosen.createdBy };
  }

  if (target.query === undefined) throw new Error("--ids-file needs --query: the dry run's query, which each id is re-checked against before its action");
  const query = bulkQuery(target.query, target.merchantId, policy.runs);
  const ids = await readIdsFile(target.idsFile!);
  const listed = await selectPayments(client, query, policy.runs);
  checkListing(listed, target.merchantId, policy.runs);
  const matching = new Map(listed.map((p) => [p.id, p]));
  const expectProblem = expectRefusal(command, policy, ids.flatMap((id) => matching.get(id) ?? []), target.expect);
  if (expectProblem) throw new Error(expectProblem);
  const outcome = await applyInBulk({
    action: command,
    query,
    ids,
    recheck: async (id) => (matching.has(id) ? stillSelected(client, query, id, target.merchantId ?? null, policy.runs) : NO_LONGER_MATCHES),
    act,
    perSecond,
  });
  return { ...outcome, ids_file: target.idsFile };
}
