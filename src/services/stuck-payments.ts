import type { Client } from '@temporalio/client';
import type { Environment } from '../domain/environment';
import { SA } from '../domain/search-attributes';
import type { Orm } from '../persistence/orm';
import { attentionReason, inspectOverdueCharges, type WorkflowState } from '../runtime/charge-reconciler';

/** One line of `payments stuck`. */
export interface StuckPayment {
  id: string;
  environment: string | null;
  /** The charge's status as the database holds it (or PaymentStatus when no row is found). */
  status: string | null;
  /** Why an operator should look at it. */
  reason: string;
  needs_attention: boolean;
  workflow: WorkflowState;
  age_seconds: number | null;
  /** Seconds past expires_at, for charges the reconciler considers overdue; else null. */
  overdue_seconds: number | null;
  ui_url: string;
}

export interface StuckOptions {
  orm: Orm;
  client: Client;
  namespace: string;
  /** e.g. http://127.0.0.1:8233 */
  uiBaseUrl: string;
  environment?: Environment;
  graceMs?: number;
  requestDeadlineMs?: number;
}

export const workflowUiUrl = (base: string, namespace: string, workflowId: string) =>
  `${base.replace(/\/$/, '')}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}`;

function overdueReason(state: WorkflowState, status: string, executionStatus: string | null, attention: string | null): string {
  switch (state) {
    case 'needs_attention':
      return attention ?? 'a database step gave up (the workflow did not answer the chargeAttention query)';
    case 'retrying':
      return `still ${status} past expires_at; its workflow is running (a database step retrying, or no worker)`;
    case 'closed':
      return `still ${status} past expires_at, but its workflow is closed (${executionStatus})`;
    case 'not_found':
      return `still ${status} past expires_at, and it has no workflow`;
  }
}

/**
 * Every payment an operator should look at: workflows marked NeedsAttention (Temporal visibility)
 * and charges unresolved past expires_at + grace (database), one entry per id, oldest first.
 */
export async function stuckPayments(options: StuckOptions): Promise<{ object: 'list'; data: StuckPayment[] }> {
  const deadlineMs = options.requestDeadlineMs ?? 10_000;
  const byId = new Map<string, StuckPayment>();
  const url = (id: string) => workflowUiUrl(options.uiBaseUrl, options.namespace, id);

  const query = `NeedsAttention = true${options.environment ? ` AND Environment = '${options.environment}'` : ''}`;
  for await (const wf of options.client.workflow.list({ query })) {
    if (byId.has(wf.workflowId)) continue; // list queries return runs
    byId.set(wf.workflowId, {
      id: wf.workflowId,
      environment: wf.typedSearchAttributes.get(SA.Environment) ?? null,
      status: wf.typedSearchAttributes.get(SA.PaymentStatus) ?? null,
      reason: (await attentionReason(options.client, wf.workflowId, deadlineMs)) ?? 'a database step gave up (the workflow did not answer the chargeAttention query)',
      needs_attention: true,
      workflow: wf.status.name === 'RUNNING' ? 'needs_attention' : 'closed',
      age_seconds: Math.round((Date.now() - wf.startTime.getTime()) / 1000),
      overdue_seconds: null,
      ui_url: url(wf.workflowId),
    });
  }

  const overdue = await inspectOverdueCharges(options, options.environment);
  for (const charge of overdue) {
    const known = byId.get(charge.id);
    byId.set(charge.id, {
      id: charge.id,
      environment: charge.environment,
      status: charge.status,
      reason: known?.reason ?? overdueReason(charge.workflow.state, charge.status, charge.workflow.executionStatus, charge.workflow.reason),
      needs_attention: known?.needs_attention ?? false,
      workflow: charge.workflow.state,
      age_seconds: charge.ageSeconds,
      overdue_seconds: charge.overdueSeconds,
      ui_url: url(charge.id),
    });
  }
  const data = [...byId.values()].sort((a, b) => (b.age_seconds ?? 0) - (a.age_seconds ?? 0) || a.id.localeCompare(b.id));
  return { object: 'list', data };
}
