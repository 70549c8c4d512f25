/**
 * The static details every payment workflow carries (the Temporal UI shows them under the summary,
 * as markdown): what it is, for which merchant, how much, by which channel, in which environment,
 * and where the runbook is. No customer data: it is stored in the history unencrypted by the codec.
 */
export interface WorkflowDetails {
  kind: string;
  id: string;
  merchantId: string;
  environment: string;
  amount?: number | null;
  currency?: string | null;
  channel?: string | null;
  /** Further lines, e.g. `charge: txn_…` of a refund. */
  extra?: Record<string, string>;
}

export function workflowDetails(details: WorkflowDetails): string {
  const lines = [
    `**${details.kind}** \`${details.id}\``,
    `- merchant: \`${details.merchantId}\``,
    details.amount != null ? `- amount: ${details.amount} ${details.currency ?? ''} (minor units)`.trimEnd() : details.currency ? `- currency: ${details.currency}` : null,
    details.channel ? `- channel: ${details.channel}` : null,
    `- environment: ${details.environment}`,
    ...Object.entries(details.extra ?? {}).map(([key, value]) => `- ${key}: ${value}`),
    `- stuck? \`payments stuck\`, then docs/operations.md`,
  ];
  return lines.filter((line): line is string => line !== null).join('\n');
}
