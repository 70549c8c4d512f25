import { ID_PREFIX } from '../domain/ids';
import { loadPartnerConfig } from '../rail/partner-config';
import type { StatementLine } from '../rail/momo-statement';
import { StatementClient } from '../reconcile/statement-client';
import { topologySecrets } from '../topology/secrets';
import type { TopologyView } from './topology-view';

/**
 * What the fake partner keeps of the run: its statement lines, per product, the disbursement
 * statement's split in two: its transfers (`disbursement`) and its refunds of request-to-pays
 * (`refund`, issue 45: the lines whose externalId is one of our refund ids, `re_…`).
 */
export interface PartnerLines {
  collection: StatementLine[];
  disbursement: StatementLine[];
  refund: StatementLine[];
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
 * The fake partner's own records of the run, read as the engine's reconciliation reads them: its
 * statement of each product and day (every submission it kept, with our externalId), with the
 * topology's partner credentials (DIR/secrets.json). The fake keeps them in memory: a restart of
 * the fake partner would forget them, and the run never kills it.
 */
export async function readPartnerLines(topology: TopologyView, since: number): Promise<PartnerLines> {
  const secrets = topologySecrets(topology.dir);
  const port = topology.piece('fake-partner').port;
  const config = loadPartnerConfig({
    PARTNER_BASE_URL: `http://127.0.0.1:${port}`,
    PARTNER_API_USER: secrets.partner.apiUser,
    PARTNER_API_KEY: secrets.partner.apiKey,
    PARTNER_SUBSCRIPTION_KEY: secrets.partner.subscriptionKey,
    PARTNER_TARGET_ENVIRONMENT: 'sandbox',
    PARTNER_CALLBACK_BASE_URL: 'http://127.0.0.1:9',
    PARTNER_CALLBACK_SECRET: secrets.callback_secret,
  })!;
  const client = new StatementClient(config);
  try {
    const lines: PartnerLines = { collection: [], disbursement: [], refund: [] };
    for (const date of days(since)) {
      lines.collection.push(...(await client.fetch('collection', date)).lines);
      for (const line of (await client.fetch('disbursement', date)).lines) (isRefundLine(line) ? lines.refund : lines.disbursement).push(line);
    }
    return lines;
  } finally {
    await client.close();
  }
}
