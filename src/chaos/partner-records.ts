import { loadPartnerConfig } from '../rail/partner-config';
import type { StatementLine } from '../rail/momo-statement';
import { StatementClient } from '../reconcile/statement-client';
import { topologySecrets } from '../topology/secrets';
import type { TopologyView } from './topology-view';

/** What the fake partner keeps of the run: its statement lines, per product. */
export interface PartnerLines {
  collection: StatementLine[];
  disbursement: StatementLine[];
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
    const lines: PartnerLines = { collection: [], disbursement: [] };
    for (const product of ['collection', 'disbursement'] as const) {
      for (const date of days(since)) lines[product].push(...(await client.fetch(product, date)).lines);
    }
    return lines;
  } finally {
    await client.close();
  }
}
