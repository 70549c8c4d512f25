import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findViolations, findWorktreeViolation, GitUnavailableError, listProblems } from '../../scripts/check-replay-discipline';

// scripts/check-replay-discipline.ts (run first by npm test) on throwaway repositories. Rule 1: a
// committed history is never rewritten (only added), whatever else the commit does, unless its
// message says why (`Replay-history: …`). Rule 2 (from a baseline): a change to the run-time code of
// workflow code, workflows/ and every file it imports, registers a new patch id or says why no command
// changes (`Replay-safe: …`). This repository's own history is walked once, by the script before jest
// (npm test's checks), not again here: it fails on a violation, a stale allow-list entry (listProblems),
// a missing baseline and a shallow clone, each shown below on a throwaway repository.

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
  const root = repo.commit('root: workflow and its recorded history', { [WF]: OLD, [HIST]: '{"events": [1]}\n', 'test/replay/histories/README.md': 'rules\n' });
  return { ...repo, root };
}

const historiesOf = (dir: string, allow: ReadonlyMap<string, string> = new Map()) =>
  findViolations(dir, allow, null).violations.map((v) => ({ subject: v.subject, historyFiles: v.historyFiles }));

describe('rule 1: a committed history is only ever added', () => {
  test('a rewrite fails in any commit: with the workflow change, behind patched(), alone, or in a later commit; adding one or editing the README passes', () => {
    const repo = baseRepo();
    const a = repo.commit('a: reorder in place, re-record', { [WF]: NEW, [HIST]: '{"events": [2]}\n' });
    repo.commit('b: same change behind patched(), re-record', { [WF]: GUARDED, [HIST]: '{"events": [3]}\n' });
    repo.commit('c: workflow change, new scenario recorded', { [WF]: GUARDED + '// comment\n', 'test/replay/histories/chargeWorkflow-new.json': '{}\n' });
    repo.commit('d: history changed, no workflow change', { [HIST]: '{"events": [4]}\n' });
    repo.commit('e: workflow change alone', { [WF]: OLD });
    repo.commit('f: the history re-recorded in a later commit', { 'test/replay/histories/chargeWorkflow-new.json': '{"x": 1}\n' });
    repo.commit('README of the histories with a workflow change', { [WF]: GUARDED + '// again\n', 'test/replay/histories/README.md': 'rules, edited\n' });

    expect(historiesOf(repo.dir)).toEqual([
      { subject: 'f: the history re-recorded in a later commit', historyFiles: ['M test/replay/histories/chargeWorkflow-new.json'] },
      { subject: 'd: history changed, no workflow change', historyFiles: [`M ${HIST}`] },
      { subject: 'b: same change behind patched(), re-record', historyFiles: [`M ${HIST}`] },
      { subject: 'a: reorder in place, re-record', historyFiles: [`M ${HIST}`] },
    ]);
    const report = findViolations(repo.dir, new Map(), null);
    expect(report.commitsChecked).toBe(8);

    // The allow-list covers what landed before the check.
    const allowed = findViolations(repo.dir, new Map([[a, 'landed before the check']]), null);
    expect(allowed.violations.map((v) => v.subject)).not.toContain('a: reorder in place, re-record');
    expect(allowed.allowedSeen).toEqual([a]);
  });

  test('deleting a committed history counts as rewriting; a `Replay-history:` line in the message says why and passes', () => {
    const repo = baseRepo();
    repo.commit('delete the history', { [HIST]: null });
    repo.commit('convert the format\n\nReplay-history: the SDK JSON format, no event changed', { 'test/replay/histories/other.json': '{}\n' });
    repo.commit('convert the format\n\nReplay-history: the SDK JSON format, no event changed', { 'test/replay/histories/other.json': '{"x": 1}\n' });
    repo.commit('a note with no reason\n\nReplay-history:', { 'test/replay/histories/other.json': '{"x": 2}\n' });
    expect(historiesOf(repo.dir)).toEqual([
      { subject: 'a note with no reason', historyFiles: ['M test/replay/histories/other.json'] },
      { subject: 'delete the history', historyFiles: [`D ${HIST}`] },
    ]);
  });
});

describe('rule 2: workflow code, wherever it lives, changes with a new patch id or a `Replay-safe:` note', () => {
  /** workflows/ importing src/domain/steps.ts (which imports helper.ts), and types.ts for its types only. */
  function domainRepo() {
    const repo = tempRepo();
    const base = repo.commit('root', {
      'workflows/index.ts': "import { next } from '../src/domain/steps';\nimport type { Step } from '../src/domain/types';\nexport const run = (s: Step) => next(s);\n",
      'workflows/patches.ts': "import { A_PATCH } from './a';\nexport const PATCH_IDS: readonly string[] = [\n  A_PATCH,\n];\n",
      'workflows/a.ts': "export const A_PATCH = 'a';\n",
      'src/domain/steps.ts': "import { order } from './helper.js';\nexport const next = (s: number) => order[s];\n",
      'src/domain/helper.ts': 'export const order = [1, 2, 3];\n',
      'src/domain/types.ts': 'export type Step = number;\nexport const UNUSED = 1;\n',
      'src/domain/unrelated.ts': 'export const fee = 100;\n',
    });
    return { ...repo, base };
  }
  const codeOf = (dir: string, baseline: string) => findViolations(dir, new Map(), baseline).violations.map((v) => ({ subject: v.subject, workflowFiles: v.workflowFiles }));

  test('a command-changing edit in a file workflow code imports (transitively, outside workflows/) fails; comments, types, unrelated and type-only-imported files pass', () => {
    const repo = domainRepo();
    repo.commit('reorder the steps in src/domain', { 'src/domain/helper.ts': 'export const order = [2, 1, 3];\n' });
    repo.commit('comments and layout only', { 'src/domain/steps.ts': "// The next step.\nimport { order } from './helper.js';\n\nexport const next = (s: number): number =>\n  order[s];\n" });
    repo.commit('a file only its types are imported from', { 'src/domain/types.ts': 'export type Step = number | string;\nexport const UNUSED = 2;\n' });
    repo.commit('a file workflow code does not import', { 'src/domain/unrelated.ts': 'export const fee = 200;\n' });
    repo.commit('in workflows/', { 'workflows/index.ts': "import { next } from '../src/domain/steps';\nexport const run = (s: number) => next(s + 1);\n" });
    expect(codeOf(repo.dir, repo.base)).toEqual([
      { subject: 'in workflows/', workflowFiles: ['workflows/index.ts'] },
      { subject: 'reorder the steps in src/domain', workflowFiles: ['src/domain/helper.ts'] },
    ]);
    expect(findViolations(repo.dir, new Map(), repo.base).codeCommitsChecked).toBe(5);
  });

  test('passes with a new id in PATCH_IDS or a `Replay-safe:` line; commits up to the baseline are not judged by it', () => {
    const repo = domainRepo();
    const before = repo.commit('before the baseline', { 'src/domain/helper.ts': 'export const order = [3, 2, 1];\n' });
    repo.commit('behind a new patch', {
      'src/domain/helper.ts': 'export const order = [1, 3, 2];\n',
      'workflows/b.ts': "export const B_PATCH = 'b';\n",
      'workflows/patches.ts': "import { A_PATCH } from './a';\nimport { B_PATCH } from './b';\nexport const PATCH_IDS: readonly string[] = [\n  A_PATCH,\n  B_PATCH,\n];\n",
    });
    repo.commit('a validator only\n\nReplay-safe: the update validator does not run on replay', { 'src/domain/helper.ts': 'export const order = [1, 3, 2, 4];\n' });
    repo.commit('a note with no reason\n\nReplay-safe:', { 'src/domain/helper.ts': 'export const order = [1, 3, 2, 5];\n' });
    expect(codeOf(repo.dir, before)).toEqual([{ subject: 'a note with no reason', workflowFiles: ['src/domain/helper.ts'] }]);
    expect(codeOf(repo.dir, repo.base).map((v) => v.subject)).toEqual(['a note with no reason', 'before the baseline']);
  });
});

test('--worktree: the pending change is judged like a commit, --note standing for its message', () => {
  const repo = baseRepo();
  expect(findWorktreeViolation(repo.dir, '', repo.root)).toBeNull();
  repo.write({ [HIST]: '{"events": [9]}\n' });
  expect(findWorktreeViolation(repo.dir, '', repo.root)).toMatchObject({ sha: '(working tree)', workflowFiles: [], historyFiles: [`M ${HIST}`] });
  repo.write({ [HIST]: '{"events": [1]}\n', [WF]: NEW });
  expect(findWorktreeViolation(repo.dir, '', repo.root)).toMatchObject({ workflowFiles: [WF], historyFiles: [] });
  expect(findWorktreeViolation(repo.dir, 'reorder\n\nReplay-safe: no run has started yet', repo.root)).toBeNull();
  repo.write({ [WF]: OLD, 'workflows/reorder.ts': `export const guard = () => patched('apply-first');\n` }); // an untracked workflow file
  expect(findWorktreeViolation(repo.dir, '', repo.root)).toMatchObject({ workflowFiles: ['workflows/reorder.ts'] });
});

test('refuses to pass silently without a repository', () => {
  const bare = tempDir();
  expect(() => findViolations(bare)).toThrow(GitUnavailableError);
  expect(() => findViolations(bare)).toThrow(/no \.git/);
});

test('a shallow clone fails, saying to run `git fetch --unshallow`, instead of passing on the few commits present', () => {
  const repo = baseRepo();
  repo.commit('delete the history', { [HIST]: null });
  repo.commit('a later commit', { 'README.md': 'x\n' });
  const shallow = path.join(tempDir(), 'shallow');
  execFileSync('git', ['clone', '-q', '--depth', '1', `file://${repo.dir}`, shallow]);
  expect(() => findViolations(shallow, new Map(), null)).toThrow(GitUnavailableError);
  expect(() => findViolations(shallow, new Map(), null)).toThrow(/is a shallow clone: .*`git fetch --unshallow`/);
  // Unshallowed, the same clone is checked whole and the deletion is found.
  execFileSync('git', ['fetch', '-q', '--unshallow'], { cwd: shallow });
  expect(historiesOf(shallow)).toEqual([{ subject: 'delete the history', historyFiles: [`D ${HIST}`] }]);
});

test('an allow-listed commit the rules do not flag (not in this history, or breaking no rule) and a baseline not in the repository are problems that fail the script', () => {
  const repo = baseRepo();
  const rewrite = repo.commit('rewrite the history', { [HIST]: '{"events": [2]}\n' });
  const innocent = repo.commit('add a history', { 'test/replay/histories/other.json': '{}\n' });
  const elsewhere = 'f'.repeat(40);
  const report = findViolations(repo.dir, new Map([[rewrite, 'before the check'], [innocent, 'listed for nothing'], [elsewhere, 'another repository']]), repo.root);
  expect(report.violations).toEqual([]);
  expect(report.allowedSeen).toEqual([rewrite]);
  expect(report.allowedUnused).toEqual([innocent, elsewhere]);
  expect(listProblems(report, repo.root)).toEqual([expect.stringContaining(`allow-listed commit(s) ${innocent.slice(0, 7)}, fffffff are not flagged by the rules`)]);
  expect(listProblems(findViolations(repo.dir, new Map([[rewrite, 'before the check']]), repo.root), repo.root)).toEqual([]);

  const missing = findViolations(repo.dir, new Map([[rewrite, 'before the check']]), elsewhere);
  expect(missing.baselineFound).toBe(false);
  expect(listProblems(missing, elsewhere)).toEqual([expect.stringContaining('the baseline fffffff (BASELINE in scripts/check-replay-discipline.ts) is not in this repository')]);
});
