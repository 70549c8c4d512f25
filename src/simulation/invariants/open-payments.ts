import { WorkflowNotFoundError } from '@temporalio/client';
import { SA } from '../../domain/search-attributes';
import type { Invariant } from '../types';
import { rows } from './sql';

/** Payments the database holds open (not in an end status), every kind; the workflow id is the payment id. */
const OPEN = `
  select id, 'charge' as kind, status from charges where status in ('pending', 'awaiting_action')
  union all select id, 'payout', status from payouts where status in ('pending', 'held_for_review')
  union all select id, 'refund', status from refunds where status = 'pending'
  union all select id, 'dispute', status from disputes where status in ('needs_response', 'under_review')
  union all select id, 'settlement', status from settlements where status = 'pending'
  order by id`;

/** Describes in flight at once. */
const AT_ONCE = 8;

/**
 * Every open payment has a running workflow, or is marked NeedsAttention with a reason (the
 * NeedsAttention and NeedsAttentionReason search attributes, src/domain/search-attributes.ts, which
 * `payments stuck` lists): one query for the open payments, then one describe() per open payment
 * (the engine is quiet, so open payments are the live ones waiting on the partner, payouts held for
 * review and disputes awaiting evidence: a few). A workflow marked NeedsAttention without a reason is
 * reported too, running or not.
 */
export const openPaymentsWatched: Invariant = {
  name: 'every open payment has a running workflow or NeedsAttention with a reason',
  async check(ctx) {
    const open = await rows<{ id: string; kind: string; status: string }>(ctx, OPEN);
    const lines: string[] = [];
    let next = 0;
    const lane = async () => {
      while (next < open.length) {
        const p = open[next++];
        let execution: string;
        let attention = false;
        let reason = '';
        try {
          const d = await ctx.temporal.client.workflow.getHandle(p.id).describe();
          execution = d.status.name;
          attention = d.typedSearchAttributes.get(SA.NeedsAttention) ?? false;
          reason = d.typedSearchAttributes.get(SA.NeedsAttentionReason)?.trim() ?? '';
        } catch (error) {
          if (!(error instanceof WorkflowNotFoundError)) throw error;
          execution = 'no workflow';
        }
        if (attention && !reason) lines.push(`${p.kind} ${p.id} (${p.status}): marked NeedsAttention without a reason (workflow ${execution})`);
        else if (execution !== 'RUNNING' && !attention) lines.push(`${p.kind} ${p.id} is ${p.status}, its workflow is ${execution}, and it is not marked NeedsAttention`);
      }
    };
    await Promise.all(Array.from({ length: Math.min(AT_ONCE, open.length) }, lane));
    return lines.sort();
  },
};
