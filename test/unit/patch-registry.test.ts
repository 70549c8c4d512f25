/**
 * Every `patched(…)` in workflows/ names an id listed in workflows/patches.ts (which `npm run replay`
 * reports on), and every id there is defined: a patch nobody counts could be removed too early.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PATCH_IDS } from '../../workflows/patches';

const read = (dir: string) =>
  fs
    .readdirSync(path.resolve(__dirname, '../..', dir))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => fs.readFileSync(path.resolve(__dirname, '../..', dir, f), 'utf8'));
const workflowSources = read('workflows');
const allSources = [...workflowSources, ...read('src/domain')].join('\n');

/** The value of `export const NAME = '…'` in workflows/ or src/domain/. */
const valueOf = (name: string) => new RegExp(`\\b${name}\\s*=\\s*'([^']+)'`).exec(allSources)?.[1];

test('the registry lists distinct ids', () => {
  expect(PATCH_IDS.length).toBeGreaterThan(0);
  expect(new Set(PATCH_IDS).size).toBe(PATCH_IDS.length);
});

test('every patched() call in workflows/ passes a constant whose id is registered', () => {
  // `isPatched(…)`: a charge's rail asks the answers its run decided at start (workflows/charge-patches.ts).
  const args = workflowSources.flatMap((s) => [...s.matchAll(/\b(?:patched|isPatched)\(([^)]*)\)/g)].map((m) => m[1].trim())).filter((a) => a !== ''); // `patched()` in comments
  expect(args.length).toBeGreaterThan(0);
  // `fail.patch` is the settlement run's (PersistOptions): its constant is checked below by name.
  // `id` (twice each) is workflows/charge-patches.ts and workflows/patches-at-start.ts deciding the ids
  // of their lists, checked below; once more each for a run that carries the issue 48 as-one marker
  // (patchedAsOne, payoutPatchesAtStart) asking a patch that marker does not stand for.
  const constants = args.filter((a) => /^[A-Z][A-Z0-9_]*$/.test(a));
  expect(args.filter((a) => !/^[A-Z][A-Z0-9_]*$/.test(a)).sort()).toEqual(['fail.patch', 'id', 'id', 'id', 'id', 'id', 'id']);
  for (const name of [...constants, 'SETTLEMENT_RUN_FAILS_ON_GIVE_UP_PATCH']) {
    const id = valueOf(name);
    expect({ name, id }).toEqual({ name, id: expect.any(String) });
    expect(PATCH_IDS).toContain(id);
  }
});

test('every patch a charge decides at start (workflows/charge-patches.ts) is a registered constant', () => {
  const source = fs.readFileSync(path.resolve(__dirname, '../../workflows/charge-patches.ts'), 'utf8');
  const lists = /const AFTER_BEGIN[^=]*=\s*\{([\s\S]*?)\n\};/.exec(source)?.[1] ?? '';
  const names = [...lists.matchAll(/\b[A-Z][A-Z0-9_]*_PATCH\b/g)].map((m) => m[0]);
  expect(names).toEqual(expect.arrayContaining(['SANDBOX_ADVANCE_PATCH', 'LIVE_PARTNER_RAIL_PATCH']));
  for (const name of [...names, 'RAIL_PATCHES_AT_START_PATCH']) expect(PATCH_IDS).toContain(valueOf(name));
});

test('every patch a payout, refund or settlement run decides at start (workflows/patches-at-start.ts) is a registered constant', () => {
  const source = fs.readFileSync(path.resolve(__dirname, '../../workflows/patches-at-start.ts'), 'utf8');
  for (const list of ['PAYOUT_PATCHES_AT_START', 'SETTLEMENT_PATCHES_AT_START', 'REFUND_PATCHES_AT_START']) {
    const body = new RegExp(`const ${list}[^=]*=\\s*\\{([\\s\\S]*?)\\n\\};`).exec(source)?.[1] ?? '';
    const names = [...body.matchAll(/\b[A-Z][A-Z0-9_]*_PATCH\b/g)].map((m) => m[0]);
    expect({ list, names }).toEqual({ list, names: expect.arrayContaining(['BOUNDED_DB_RETRIES_PATCH']) });
    for (const name of names) expect({ name, id: PATCH_IDS.includes(valueOf(name) ?? '') }).toEqual({ name, id: true });
  }
  expect(PATCH_IDS).toContain(valueOf('PATCHES_AT_START_PATCH'));
});
