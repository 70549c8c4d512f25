import fs from 'node:fs';
import path from 'node:path';
import { createMerchant } from '../persistence/merchants/merchant-store';
import type { Orm } from '../persistence/orm';

export interface DemoMerchant {
  id: string;
  test_key: string;
}

/**
 * The demo merchant of a local install. Keys are stored hashed, so the demo's sandbox key is kept
 * (mode 0600) in the local data folder to be shown again on the next start; it never goes to a log.
 */
export async function ensureDemoMerchant(orm: Orm, dataDir: string): Promise<DemoMerchant> {
  const file = path.join(dataDir, 'demo-merchant.json');
  if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8')) as DemoMerchant;
  const merchant = await createMerchant(orm, 'Demo merchant');
  const demo = { id: merchant.id, test_key: merchant.testKey.secret };
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(file, JSON.stringify(demo, null, 2), { mode: 0o600 });
  return demo;
}
