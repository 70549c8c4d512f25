import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ALLOWED, findViolations, findWorktreeViolation, GitUnavailableError } from '../../scripts/check-replay-discipline';

// scripts/check-replay-discipline.ts (run first by npm test) on throwaway repositories: a workflow
// change may add histories, but re-recording a committed one needs a patched() call in the same commit.

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'replay-discipline-'));
  dirs.push(dir);
  return dir;
}

/** A git repository with one commit per call of `commit`; files set to null are deleted. */
function tempRepo() {
  const dir = tempDir();
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();
  git('init', '-q');
  git('config', 'user.name', 'Replay Test');
  git('config', 'user.email', 'replay@example.com');
  git('config', 'commit.gpgsign', 'false');
  const write = (files: Record<string, string | null>) => {
    for (const [file, text] of Object.entries(files)) {
      const full = path.join(dir, file);
      if (text === null) fs.rmSync(full);
      else {
        fs.mkdirSync(path.dirname(full), { recursive: true });
        fs.writeFileSync(full, text);
      }
    }
  };
  return {
    dir,
    write,
    commit(message: string, files: Record<string, string | null>): string {
      write(files);
      git('add', '-A');
      git('commit', '-q', '-m', message);
      return git('rev-parse', 'HEAD');
    },
  };
}

const WF = 'workflows/charge.ts';
const HIST = 'test/replay/histories/chargeWorkflow-succeed.json';
const OLD = 'await sleep(3000);\nawait finish();\n';
const NEW = 'await finish();\nawait sleep(3000);\n';
const GUARDED = `if (patched('apply-first')) {\n${NEW}} else {\n${OLD}}\n`;

function baseRepo() {
  const repo = tempRepo();
  repo.commit('root: workflow and its recorded history', { [WF]: OLD, [HIST]: '{"events": [1]}\n', 'test/replay/histories/README.md': 'rules\n' });
  return repo;
}

test('flags (a) only: workflow change + re-recorded history without patched(); (b) guarded, (c) new history, (d) history alone pass', () => {
  const repo = baseRepo();
  const a = repo.commit('a: reorder in place, re-record', { [WF]: NEW, [HIST]: '{"events": [2]}\n' });
  repo.commit('b: same change behind patched(), re-record', { [WF]: GUARDED, [HIST]: '{"events": [3]}\n' });
  repo.commit('c: workflow change, new scenario recorded', { [WF]: GUARDED + '// comment\n', 'test/replay/histories/chargeWorkflow-new.json': '{}\n' });
  repo.commit('d: history changed, no workflow change', { [HIST]: '{"events": [4]}\n' });
  repo.commit('README of the histories with a workflow change', { [WF]: GUARDED + '// again\n', 'test/replay/histories/README.md': 'rules, edited\n' });

  const report = findViolations(repo.dir, new Map());
  expect(report.violations).toEqual([{ sha: a, subject: 'a: reorder in place, re-record', workflowFiles: [WF], historyFiles: [`M ${HIST}`] }]);
  expect(report.commitsChecked).toBe(6);
  expect(report.shallow).toBe(false);

  // The allow-list covers what landed before the check.
  const allowed = findViolations(repo.dir, new Map([[a, 'landed before the check']]));
  expect(allowed.violations).toEqual([]);
  expect(allowed.allowedSeen).toEqual([a]);
});

test('deleting a committed history counts as re-recording; a patched() that is only a comment does not guard', () => {
  const repo = baseRepo();
  const deleted = repo.commit('delete the history', { [WF]: NEW, [HIST]: null });
  const commented = repo.commit('mention patched() in a comment only', { [WF]: `// TODO: patched('x')\n${OLD}`, 'test/replay/histories/other.json': '{}\n' });
  const rerecordOther = repo.commit('re-record the other one', { [WF]: `/* patched('x') later */\n${NEW}`, 'test/replay/histories/other.json': '{"x": 1}\n' });

  const shas = findViolations(repo.dir, new Map()).violations.map((v) => [v.sha, v.historyFiles]);
  expect(shas).toEqual([
    [rerecordOther, ['M test/replay/histories/other.json']],
    [deleted, [`D ${HIST}`]],
  ]);
  expect(shas.map(([sha]) => sha)).not.toContain(commented); // it only added a history
});

test('--worktree: the pending change is judged like a commit', () => {
  const repo = baseRepo();
  expect(findWorktreeViolation(repo.dir)).toBeNull();
  repo.write({ [HIST]: '{"events": [9]}\n' });
  expect(findWorktreeViolation(repo.dir)).toBeNull(); // history alone
  repo.write({ [WF]: NEW });
  expect(findWorktreeViolation(repo.dir)).toMatchObject({ sha: '(working tree)', workflowFiles: [WF], historyFiles: [`M ${HIST}`] });
  repo.write({ [WF]: OLD, 'workflows/reorder.ts': `export const guard = () => patched('apply-first');\n` }); // untracked file with the guard
  expect(findWorktreeViolation(repo.dir)).toBeNull();
});

test('refuses to pass silently without a repository', () => {
  const bare = tempDir();
  expect(() => findViolations(bare)).toThrow(GitUnavailableError);
  expect(() => findViolations(bare)).toThrow(/no \.git/);
});

test('this repository passes, and its allow-list names exactly the two commits that re-recorded in place', () => {
  const report = findViolations(path.resolve(__dirname, '../..'));
  expect(report.violations).toEqual([]);
  if (!report.shallow) expect(report.allowedSeen.sort()).toEqual([...ALLOWED.keys()].sort());
});
