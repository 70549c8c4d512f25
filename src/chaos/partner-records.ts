import { ID_PREFIX } from '../domain/ids';
import type { PartnerName } from '../domain/rail-routes';
import { DEFAULT_AGGREGATOR_TIMEOUT_MS } from '../rail/aggregator/config';
import { AggregatorStatementClient } from '../reconcile/aggregator-statement-client';
import type { PartnerStatementClient } from '../reconcile/partner-statement-client';
import { loadPartnerConfig } from '../rail/partner-config';
import type { StatementLine } from '../rail/momo-statement';
import { StatementClient } from '../reconcile/statement-client';
import { topologySecrets } from '../topology/secrets';
import type { TopologyView } from './topology-view';

/** A statement line with the partner whose statement lists it (issue 46: both partners' books are read). */
export type PartnerLine = StatementLine & { partner: PartnerName };

/**
 * What the fake partners keep of the run: their statement lines, per product, the disbursement
 * statement's split in two: its transfers (`disbursement`) and its refunds of request-to-pays
 * (`refund`, issue 45: the lines whose externalId is one of our refund ids, `re_…`). Since issue 46
 * both the MoMo fake's and the fake aggregator's, each line naming its partner.
 */
export interface PartnerLines {
  collection: PartnerLine[];
  disbursement: PartnerLine[];
  refund: PartnerLine[];
  /** The partners whose books were read (the aggregator's only where the topology runs its fake). */
  partners: PartnerName[];
}

/** A disbursement statement line of a refund: its externalId is our refund's id. */
export function isRefundLine(line: StatementLine): boolean {
  return line.externalId.startsWith(ID_PREFIX.refund);
}

/** The UTC days from `from` to now (a run that passes midnight reads both statements). */
function days(from: number): string[] {
  const out: string[] = [];
  for (let t = from - 60_000; t <= Date.now() + 60_000; t += 3_600_000) {
    const d = new Date(t).toISOString().slice(0, 10);
    if (!out.includes(d)) out.push(d);
  }
  const today = new Date().toISOString().slice(0, 10);
  if (!out.includes(today)) out.push(today);
  return out;
}

/**
 * The fake partners' own records of the run, read as the engine's reconciliation reads them: the
 * statement of each product and day of each (every submission it kept, with our externalId), with
 * the topology's credentials (DIR/secrets.json): the MoMo fake's, and the fake aggregator's where the
 * topology has one (issue 46). The fakes keep them in memory: a restart would forget them, and the
 * run never kills them (their outages are a stopped process or a closed port).
 */
export async function readPartnerLines(topology: TopologyView, since: number): Promise<PartnerLines> {
  const secrets = topologySecrets(topology.dir);
  const config = loadPartnerConfig({
    PARTNER_BASE_URL: `http://127.0.0.1:${topology.piece('fake-partner').port}`,
    PARTNER_API_USER: secrets.partner.apiUser,
    PARTNER_API_KEY: secrets.partner.apiKey,
    PARTNER_SUBSCRIPTION_KEY: secrets.partner.subscriptionKey,
    PARTNER_TARGET_ENVIRONMENT: 'sandbox',
    PARTNER_CALLBACK_BASE_URL: 'http://127.0.0.1:9',
    PARTNER_CALLBACK_SECRET: secrets.callback_secret,
  })!;
  const clients: Array<{ partner: PartnerName; client: PartnerStatementClient }> = [{ partner: 'momo', client: new StatementClient(config) }];
  if (topology.hasPiece('fake-aggregator')) {
    const baseUrl = `http://127.0.0.1:${topology.piece('fake-aggregator').port}`;
    clients.push({ partner: 'aggregator', client: new AggregatorStatementClient({ baseUrl, secretKey: secrets.aggregator.secretKey, webhookHash: secrets.aggregator.webhookHash, timeoutMs: DEFAULT_AGGREGATOR_TIMEOUT_MS }) });
  }
  const lines: PartnerLines = { collection: [], disbursement: [], refund: [], partners: clients.map((c) => c.partner) };
  try {
    for (const { partner, client } of clients) {
      for (const date of days(since)) {
        for (const line of (await client.fetch('collection', date)).lines) lines.collection.push({ ...line, partner });
        for (const line of (await client.fetch('disbursement', date)).lines) (isRefundLine(line) ? lines.refund : lines.disbursement).push({ ...line, partner });
      }
    }
    return lines;
  } finally {
    for (const { client } of clients) await client.close();
  }
}
