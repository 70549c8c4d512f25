import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { disputeJson } from '../domain/dispute';
import { evidenceRefusal } from '../domain/dispute-evidence';
import { ApiError } from '../domain/errors';
import { findDispute } from '../persistence/disputes/dispute-store';
import { submitEvidenceUpdate } from '../../workflows/dispute-messages';
import { serviceUnavailable, withTemporalDeadline } from './dependency-unavailable';
import type { Caller, ServiceDeps } from './context';

const notFound = (id: string) => new ApiError('not_found', `No dispute ${id}.`, { param: 'id' });
const notAccepted = (message: string) => new ApiError('evidence_not_accepted', message);

/**
 * POST /v1/disputes/{id}/evidence: sends the `submitEvidence` update to the dispute's workflow, which
 * decides (its validator: the dispute needs a response, no evidence yet, the deadline not passed) and
 * answers once the evidence is recorded (`under_review`). The answer is the dispute object read back
 * (the workflow answers its state only: no evidence text in its results).
 *
 * 404 for a dispute that is not the caller's. 409 `evidence_not_accepted` with the reason when the
 * dispute does not take evidence: checked here first against the stored dispute (no Temporal call),
 * then by the workflow (the one that decides, e.g. a deadline that fires while the request is on its
 * way), and for a run that has ended (resolved). A dispute whose workflow has not started yet
 * (the dispute-start relay starts it) is 503 `service_unavailable`: the same request later succeeds.
 */
export async function submitDisputeEvidence(deps: ServiceDeps, caller: Caller, id: string, text: string): Promise<string> {
  const dispute = await findDispute(deps.orm, caller, id);
  if (!dispute) throw notFound(id);
  const refusal = evidenceRefusal(dispute, Date.now());
  if (refusal) throw notAccepted(refusal);
  try {
    await withTemporalDeadline(deps.temporal, deps.temporalDeadlineMs, () =>
      deps.temporal.client.workflow.getHandle(id).executeUpdate(submitEvidenceUpdate, { args: [{ text }] }),
    );
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError) throw notAccepted(error.cause?.message ?? `Dispute ${id} did not accept the evidence.`);
    if (!(error instanceof WorkflowNotFoundError)) throw error;
    // No running workflow: it has ended (the dispute is resolved), or it has not started yet.
    const now = await findDispute(deps.orm, caller, id);
    const why = now ? evidenceRefusal(now, Date.now()) : null;
    if (why) throw notAccepted(why);
    throw serviceUnavailable(`The workflow of dispute ${id} has not started yet; it starts within seconds.`);
  }
  return disputeJson((await findDispute(deps.orm, caller, id))!);
}
