/**
 * Replay discipline (test/replay/histories/README.md): a commit that changes workflow code must not
 * re-record a committed history to make replay pass. Fails when a commit reachable from HEAD changes
 * a file under workflows/ and modifies or deletes a history under test/replay/histories/ without
 * adding a `patched(` call in its workflows/ diff. Adding a new history file is allowed.
 *
 *   npx tsx scripts/check-replay-discipline.ts [--worktree]
 *
 * --worktree also checks the pending changes (staged, unstaged and untracked) against HEAD.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export const WORKFLOWS_DIR = 'workflows/';
export const HISTORIES_DIR = 'test/replay/histories/';

/**
 * Commits that landed before this check and did exactly what it forbids. Rewriting them is not an
 * option, and their histories stand as recorded: they are what the current code replays.
 */
export const ALLOWED: ReadonlyMap<string, string> = new Map([
  [
    // "Immediate sandbox failures answer the failed charge": moved the `fail` transition before the
    // acceptance answer and re-recorded chargeWorkflow-immediate-failure.json in place. Landed before
    // this check existed (no production runs were in flight then).
    'd15f2a821d3d956d2fbc1246565d29059ad52bc0',
    'landed before the check; chargeWorkflow-immediate-failure.json stands as re-recorded',
  ],
  [
    // "create answer stays in flight for immediate failures": moved it back after the answer and
    // re-recorded the same history again. Landed before this check existed.
    '3662b6f7c2e23e07ef4a89a49a174b1f32cd67f8',
    'landed before the check; chargeWorkflow-immediate-failure.json stands as re-recorded',
  ],
]);

export interface Violation {
  /** Commit id, or `(working tree)` for --worktree. */
  sha: string;
  subject: string;
  workflowFiles: string[];
  /** Committed histories the commit modified or deleted, each as `<status> <path>`. */
  historyFiles: string[];
}

export interface Report {
  violations: Violation[];
  commitsChecked: number;
  allowedSeen: string[];
  shallow: boolean;
}

interface Change {
  status: string;
  path: string;
}

export class GitUnavailableError extends Error {}

function git(repoDir: string, args: string[]): string {
  const result = spawnSync('git', ['-c', 'core.quotePath=false', ...args], { cwd: repoDir, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (result.error) {
    const code = (result.error as NodeJS.ErrnoException).code;
    throw new GitUnavailableError(code === 'ENOENT' ? 'git is not installed (or not on PATH): the replay discipline check needs it' : `git ${args[0]} failed: ${result.error.message}`);
  }
  if (result.status !== 0) throw new GitUnavailableError(`git ${args.join(' ')} failed in ${repoDir}: ${result.stderr.trim()}`);
  return result.stdout;
}

/** Fails unless repoDir is the top of a git work tree with at least one commit. */
function assertRepository(repoDir: string): void {
  if (!fs.existsSync(path.join(repoDir, '.git'))) {
    throw new GitUnavailableError(`${repoDir} has no .git: the replay discipline check needs the repository's history (run it in a clone, not an export)`);
  }
  const top = git(repoDir, ['rev-parse', '--show-toplevel']).trim();
  if (fs.realpathSync(top) !== fs.realpathSync(repoDir)) throw new GitUnavailableError(`${repoDir} is not the top of its git work tree (${top})`);
  if (spawnSync('git', ['rev-parse', '--verify', '--quiet', 'HEAD'], { cwd: repoDir }).status !== 0) {
    throw new GitUnavailableError(`${repoDir} has no commit yet (HEAD does not resolve)`);
  }
}

/** `-z --name-status` output: status and path alternate (renames are off, so one path each). */
function parseNameStatus(output: string): Change[] {
  const fields = output.split('\0').filter((f) => f !== '');
  const changes: Change[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) changes.push({ status: fields[i], path: fields[i + 1] });
  return changes;
}

/**
 * Lines a unified diff adds (a combined diff of a merge too: there the first N characters are one
 * column per parent). File headers (`+++ b/...`) are skipped.
 */
export function addedLines(diff: string): string[] {
  const added: string[] = [];
  let columns = 0;
  for (const line of diff.split('\n')) {
    if (line.startsWith('diff ')) columns = 0;
    const hunk = /^(@@+) /.exec(line);
    if (hunk) {
      columns = hunk[1].length - 1;
      continue;
    }
    if (columns === 0) continue; // file header
    const marks = line.slice(0, columns);
    if (marks.includes('+') && !marks.includes('-')) added.push(line.slice(columns));
  }
  return added;
}

/** An added line that calls patched(...), not one that only mentions it in a comment. */
export function addsPatchedCall(lines: string[]): boolean {
  return lines.some((line) => {
    const code = line.trim();
    if (code.startsWith('//') || code.startsWith('*') || code.startsWith('/*')) return false;
    return /(^|[^\w$])patched\s*\(/.test(code.replace(/\/\/.*$/, ''));
  });
}

const isWorkflowFile = (file: string) => file.startsWith(WORKFLOWS_DIR);
const isHistory = (file: string) => file.startsWith(HISTORIES_DIR) && file.endsWith('.json');
/** A history that was there before and is now changed or gone; `A` (added) is the allowed case. */
const rerecorded = (c: Change) => isHistory(c.path) && /[^A]/.test(c.status);

function judge(changes: Change[], workflowDiff: () => string): Omit<Violation, 'sha' | 'subject'> | null {
  const workflowFiles = changes.filter((c) => isWorkflowFile(c.path)).map((c) => c.path);
  const historyFiles = changes.filter(rerecorded).map((c) => `${c.status} ${c.path}`);
  if (workflowFiles.length === 0 || historyFiles.length === 0) return null;
  if (addsPatchedCall(addedLines(workflowDiff()))) return null;
  return { workflowFiles, historyFiles };
}

const DIFF_FLAGS = ['-r', '--root', '--no-renames', '--no-ext-diff', '--no-textconv', '-c'];

/**
 * Every commit reachable from HEAD. A merge is judged by what it changes against all of its parents
 * (`-c`: the merge resolution itself); the commits it brings in are checked one by one anyway.
 */
export function findViolations(repoDir: string, allow: ReadonlyMap<string, string> = ALLOWED): Report {
  assertRepository(repoDir);
  const shallow = git(repoDir, ['rev-parse', '--is-shallow-repository']).trim() === 'true';
  const commits = git(repoDir, ['rev-list', 'HEAD']).split('\n').filter(Boolean);
  const violations: Violation[] = [];
  const allowedSeen: string[] = [];
  for (const sha of commits) {
    const changes = parseNameStatus(git(repoDir, ['diff-tree', '--no-commit-id', '--name-status', '-z', ...DIFF_FLAGS, sha]));
    const found = judge(changes, () => git(repoDir, ['diff-tree', '--no-commit-id', '-p', '-U0', ...DIFF_FLAGS, sha, '--', WORKFLOWS_DIR]));
    if (!found) continue;
    if (allow.has(sha)) {
      allowedSeen.push(sha);
      continue;
    }
    violations.push({ sha, subject: git(repoDir, ['log', '--no-show-signature', '-1', '--format=%s', sha]).trim(), ...found });
  }
  return { violations, commitsChecked: commits.length, allowedSeen, shallow };
}

/** The pending change against HEAD: staged, unstaged and untracked (not ignored) files. */
export function findWorktreeViolation(repoDir: string): Violation | null {
  assertRepository(repoDir);
  const tracked = parseNameStatus(git(repoDir, ['diff', 'HEAD', '--name-status', '-z', '--no-renames']));
  const untracked = git(repoDir, ['ls-files', '--others', '--exclude-standard', '-z']).split('\0').filter(Boolean);
  const changes = [...tracked, ...untracked.map((file) => ({ status: 'A', path: file }))];
  const found = judge(changes, () => {
    const diff = git(repoDir, ['diff', 'HEAD', '-U0', '--no-renames', '--no-ext-diff', '--no-textconv', '--', WORKFLOWS_DIR]);
    // An untracked workflow file is all added lines.
    const fresh = untracked.filter(isWorkflowFile).map((file) => '@@ -0,0 +1 @@\n' + fs.readFileSync(path.join(repoDir, file), 'utf8').split('\n').map((l) => `+${l}`).join('\n'));
    return [diff, ...fresh.map((d) => `diff --git\n${d}`)].join('\n');
  });
  return found && { sha: '(working tree)', subject: 'uncommitted changes', ...found };
}

function main(argv: string[]): number {
  const repoDir = path.resolve(__dirname, '..');
  const withWorktree = argv.includes('--worktree');
  const unknown = argv.filter((a) => a !== '--worktree');
  if (unknown.length > 0) {
    console.error(`check-replay-discipline: unknown argument(s) ${unknown.join(' ')}; usage: check-replay-discipline.ts [--worktree]`);
    return 2;
  }
  let report: Report;
  let pending: Violation | null = null;
  try {
    report = findViolations(repoDir);
    if (withWorktree) pending = findWorktreeViolation(repoDir);
  } catch (error) {
    if (!(error instanceof GitUnavailableError)) throw error;
    console.error(`check-replay-discipline: cannot check: ${error.message}`);
    return 1;
  }
  if (report.shallow) {
    console.warn(
      `check-replay-discipline: WARNING shallow clone: only the ${report.commitsChecked} commit(s) present were checked, ` +
        `and the oldest of them is compared with an empty tree. Fetch the full history (git fetch --unshallow) for a complete check.`,
    );
  }
  const violations = pending ? [...report.violations, pending] : report.violations;
  if (violations.length === 0) {
    const scope = `${report.commitsChecked} commit(s)${withWorktree ? ' and the working tree' : ''}`;
    console.log(`check-replay-discipline: OK (${scope}; ${report.allowedSeen.length} allow-listed commit(s) from before the check)`);
    return 0;
  }
  console.error('check-replay-discipline: workflow changes that re-record committed replay histories without patched():');
  for (const v of violations) {
    console.error(`  ${v.sha} ${v.subject}`);
    console.error(`    workflows:  ${v.workflowFiles.join(', ')}`);
    console.error(`    histories:  ${v.historyFiles.join(', ')}`);
  }
  console.error(
    'A workflow change that alters the command sequence must be guarded with patched(); record a new scenario instead ' +
      'of re-recording an existing history. See test/replay/histories/README.md.',
  );
  return 1;
}

if (require.main === module) {
  process.exitCode = main(process.argv.slice(2));
}
