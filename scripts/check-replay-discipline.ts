/**
 * Replay discipline (test/replay/histories/README.md), on every commit reachable from HEAD:
 *
 * 1. A committed history under test/replay/histories/ is never modified or deleted (it stands for
 *    runs in flight): adding one is the only change allowed, in the same commit as a workflow change
 *    or any later one. A deliberate rewrite (a format conversion; the histories of a branch whose
 *    patch was removed) says why in a `Replay-history: …` line of the commit message.
 * 2. From BASELINE on: a commit that changes the run-time code of workflow code, i.e. a file under
 *    workflows/ or any file they import (src/domain/…: scripts/workflow-reachable.ts), registers a
 *    new patch id in workflows/patches.ts (its `patched()` guard), or says why no command changes
 *    in a `Replay-safe: …` line of the commit message. Comments, types and layout are not run-time
 *    code.
 *
 * Commits that landed before a rule and broke it are allow-listed below, each with its reason.
 *
 *   npx tsx scripts/check-replay-discipline.ts [--worktree [--note 'Replay-safe: …']]
 *
 * --worktree also checks the pending changes (staged, unstaged and untracked) against HEAD, with
 * --note standing for the commit message to come.
 *
 * It cannot check a shallow clone (the commits it lacks are the ones to judge): there it fails,
 * saying to run `git fetch --unshallow`, rather than pass on the few commits present. It also fails
 * when an allow-listed commit is not one the rules flag here (the list is stale), or when BASELINE is
 * not in this history.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { GitObjects, patchIdEntries, sameRuntimeCode, WORKFLOWS_DIR, workflowReachable, type SourceTree } from './workflow-reachable';

export { WORKFLOWS_DIR };
export const HISTORIES_DIR = 'test/replay/histories/';
export const PATCHES_FILE = 'workflows/patches.ts';

/**
 * Rule 2 applies to the commits after this one (issue 31: before it, only a workflows/ change that
 * also rewrote a history was checked, and most commits that touched workflow code named no patch).
 */
export const BASELINE = '4733023b12b2b04abfcd2f8eb1db732a0f340361';

/** A line of the commit message that says why its workflow code change issues the same commands. */
export const SAFE_NOTE = /^Replay-safe:[ \t]*\S/m;
/** A line of the commit message that says why it rewrites a committed history. */
export const HISTORY_NOTE = /^Replay-history:[ \t]*\S/m;

/**
 * Commits that landed before this check and did exactly what it forbids. Rewriting them is not an
 * option, and their histories stand as recorded: they are what the current code replays.
 */
export const ALLOWED: ReadonlyMap<string, string> = new Map([
  [
    // "PaymentReviewSource in its own file": a type and a constant array moved from
    // src/domain/payment-review.ts to src/domain/payment-review-source.ts and re-exported; no command
    // of any run changes (it broke an import cycle).
    'ed4462f2f0fd914d7bae7f829690809ab21d72fe',
    'a type and a constant moved to their own file, re-exported: no command changes',
  ],
  [
    // "Pin protobufjs 8.8.1 so the SDK's history JSON helpers work; replay uses them": rewrote six
    // charge histories in the SDK's JSON format, no event changed. Landed before rule 1 covered a
    // history rewritten without a workflow change.
    '2f8c3bd35ebb13986f2606f5d590815aaee2229e',
    'landed before the check; a format conversion of six histories',
  ],
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
  [
    // "Merchant settings are money (issue 43, finding 6)": in the workflow code, it only added four
    // entries to CHANGE_ACTIONS (src/domain/operator-action.ts, audit rows written by the CLI's stores)
    // and, in src/domain/settlement-run.ts, the SETTLEMENT_ACCOUNT_HOLD constant and
    // settlementAccountHoldSkip() (used by the settlement run's page activity, not by a workflow). No
    // command of any run changes; its message lacked the `Replay-safe:` line.
    'f53ebcadbbb5feb444b4e7fdca01fba150616f5a',
    'replay-safe: constants and a helper only, none used by workflow code',
  ],
  [
    // "Settlement batches: the live partner wait continues as new…" (issue 43): its settlement code is
    // behind patched('partner-wait-continues-as-new'), the id 840aa4d added, which a live settlement
    // run now decides in its first activation (SETTLEMENT_PATCHES_AT_START): a run started before it
    // recorded no such marker at its start, answers false on replay and takes the old branch; the
    // input's new optional `resume` is absent from every recorded history. Its message lacked the
    // `Replay-safe:` line.
    'aa080d99cfcd88245988263d7dd0b6fd034ef972',
    "replay-safe: behind 840aa4d's patch id, decided at a new run's start",
  ],
  [
    // "Issue 45: which partner takes what": `rail` added to the public charge, payout and refund
    // objects (src/domain/charge.ts, payout.ts, refund.ts) and src/domain/rail-routes.ts added; the
    // workflows import these files for types and states, and no workflow reads `rail`: no command
    // of any run changes (its message lacked the Replay-safe line).
    '25212f5cb1d9528b48b09c276d637c2a84fdd792',
    'a field of the public objects and a new domain file: no workflow reads them, no command changes',
  ],
  [
    // "Issue 46: a merchant's own routes": src/domain/rail-routes.ts gains merchantRouteOf, used by
    // the API's route choice only; the workflows import the file for types: no command changes.
    'cb5284915e4fb2ab3aa7501621ff5a1bfa1c2fab',
    'a function of the API\'s route choice in a domain file the workflows import for types: no command changes',
  ],
  [
    // "Issue 46: default mobile_money:*=momo|aggregator": defaultRailRoutes (API and worker start) changed;
    // no workflow calls it: no command changes.
    '9cf0e003d5869b42acc31994e79e53c68a337d25',
    'the start\'s default routes, read by the API and the worker at start, never by a workflow: no command changes',
  ],
]);

export interface Violation {
  /** Commit id, or `(working tree)` for --worktree. */
  sha: string;
  subject: string;
  /** Workflow code whose run-time code changed, with no new patch id and no `Replay-safe:` note (rule 2). */
  workflowFiles: string[];
  /** Committed histories the commit modified or deleted, each as `<status> <path>`, with no `Replay-history:` note (rule 1). */
  historyFiles: string[];
}

export interface Report {
  violations: Violation[];
  commitsChecked: number;
  /** Commits checked under rule 2 (after the baseline). */
  codeCommitsChecked: number;
  allowedSeen: string[];
  /** Allow-listed commits the rules did not flag: not in this history, or breaking no rule (a stale entry). */
  allowedUnused: string[];
  /** False when the baseline commit is not in this repository: rule 2 then checks every commit but the root. */
  baselineFound: boolean;
}

interface Change {
  status: string;
  path: string;
}

export class GitUnavailableError extends Error {}

/**
 * The message for a shallow clone. Deepening it needs the network (the missing commits are on the
 * remote), so the check does not try on its own during `npm test`: it fails and says how.
 */
export function shallowCloneMessage(repoDir: string): string {
  return (
    `${repoDir} is a shallow clone: the replay discipline check judges every commit reachable from HEAD, and most are missing here. ` +
    'Fetch the full history with `git fetch --unshallow` (or clone without --depth), then run it again.'
  );
}

function git(repoDir: string, args: string[], input?: string): string {
  const result = spawnSync('git', ['-c', 'core.quotePath=false', ...args], { cwd: repoDir, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, input });
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

const isHistory = (file: string) => file.startsWith(HISTORIES_DIR) && file.endsWith('.json');
/** A history that was there before and is now changed or gone; `A` (added) is the allowed case. */
const rerecorded = (c: Change) => isHistory(c.path) && /[^A]/.test(c.status);

/** One change to judge: a commit against its parent, or the working tree against HEAD. */
interface Pending {
  changes: Change[];
  message: () => string;
  /** Rule 2 applies: after the baseline, with a parent to compare with. */
  codeRule: boolean;
  before: () => SourceTree;
  after: () => SourceTree;
}

/** Rule 1 (histories) and rule 2 (workflow code) on one change; null when it keeps both. */
function judge(pending: Pending): Omit<Violation, 'sha' | 'subject'> | null {
  let historyFiles = pending.changes.filter(rerecorded).map((c) => `${c.status} ${c.path}`);
  if (historyFiles.length > 0 && HISTORY_NOTE.test(pending.message())) historyFiles = [];
  let workflowFiles: string[] = [];
  if (pending.codeRule && pending.changes.some((c) => SOURCE_FILE.test(c.path))) {
    const before = pending.before();
    const after = pending.after();
    const reachable = new Set([...workflowReachable(before), ...workflowReachable(after)]);
    const touched = pending.changes.map((c) => c.path).filter((file) => reachable.has(file));
    const text = (tree: SourceTree, file: string) => (tree.has(file) ? tree.read([file]).get(file) : undefined);
    workflowFiles = touched.filter((file) => !sameRuntimeCode(file, text(before, file), text(after, file)));
    if (workflowFiles.length > 0) {
      const added = [...patchIdEntries(text(after, PATCHES_FILE))].filter((id) => !patchIdEntries(text(before, PATCHES_FILE)).has(id));
      if (added.length > 0 || SAFE_NOTE.test(pending.message())) workflowFiles = [];
    }
  }
  return workflowFiles.length > 0 || historyFiles.length > 0 ? { workflowFiles, historyFiles } : null;
}

const SOURCE_FILE = /\.(ts|tsx|mts|cts|js|mjs|cjs|json)$/;
const DIFF_FLAGS = ['-r', '--root', '--no-renames', '--no-ext-diff', '--no-textconv', '-c'];
/** A commit id in `diff-tree --stdin -z` output (SHA-1 or SHA-256): never a status, which is a few letters. */
const COMMIT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/**
 * What each commit changes, from one `git diff-tree --stdin` for all of them (one process, not one per
 * commit: 640 commits took 10 s of spawning that way, issue 42). `--always` prints a commit's id even
 * when it changes nothing; after the id come its `status, path` pairs.
 */
function changesOfCommits(repoDir: string, shas: string[]): Map<string, Change[]> {
  const fields = git(repoDir, ['diff-tree', '--stdin', '--always', '--name-status', '-z', ...DIFF_FLAGS], shas.map((sha) => `${sha}\n`).join('')).split('\0');
  const changes = new Map<string, Change[]>();
  let current: Change[] | undefined;
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i].replace(/^\n/, '');
    if (field === '') continue;
    if (COMMIT_ID.test(field)) {
      current = [];
      changes.set(field, current);
    } else {
      if (!current || i + 1 >= fields.length) throw new GitUnavailableError(`git diff-tree --stdin: unexpected output near "${field}"`);
      current.push({ status: field, path: fields[++i] });
    }
  }
  const missing = shas.filter((sha) => !changes.has(sha));
  if (missing.length > 0) throw new GitUnavailableError(`git diff-tree --stdin answered nothing for ${missing.length} commit(s), ${missing[0]} first`);
  return changes;
}

/** The commits rule 2 applies to: after the baseline (every commit when the repository lacks it). */
function codeRuleCommits(repoDir: string, baseline: string | null): { commits: Set<string>; baselineFound: boolean } {
  if (baseline === null) return { commits: new Set(), baselineFound: true };
  const found = spawnSync('git', ['cat-file', '-e', `${baseline}^{commit}`], { cwd: repoDir }).status === 0;
  const range = found ? ['rev-list', 'HEAD', '--not', baseline] : ['rev-list', 'HEAD'];
  return { commits: new Set(git(repoDir, range).split('\n').filter(Boolean)), baselineFound: found };
}

/**
 * Every commit reachable from HEAD. A merge is judged by what it changes against all of its parents
 * (`-c`: the merge resolution itself; rule 2 compares it with its first parent); the commits it
 * brings in are checked one by one anyway. `baseline` null: rule 2 is off.
 */
export function findViolations(repoDir: string, allow: ReadonlyMap<string, string> = ALLOWED, baseline: string | null = BASELINE): Report {
  assertRepository(repoDir);
  if (git(repoDir, ['rev-parse', '--is-shallow-repository']).trim() === 'true') throw new GitUnavailableError(shallowCloneMessage(repoDir));
  const commits = git(repoDir, ['rev-list', '--parents', 'HEAD'])
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split(' '));
  const { commits: afterBaseline, baselineFound } = codeRuleCommits(repoDir, baseline);
  const objects = new GitObjects(repoDir);
  const changesOf = changesOfCommits(repoDir, commits.map(([sha]) => sha));
  const violations: Violation[] = [];
  const allowedSeen: string[] = [];
  let codeCommitsChecked = 0;
  for (const [sha, parent] of commits) {
    const codeRule = afterBaseline.has(sha) && parent !== undefined;
    if (codeRule) codeCommitsChecked++;
    const found = judge({
      changes: changesOf.get(sha)!,
      message: () => git(repoDir, ['log', '--no-show-signature', '-1', '--format=%B', sha]),
      codeRule,
      before: () => objects.sourceTree(parent!),
      after: () => objects.sourceTree(sha),
    });
    if (!found) continue;
    if (allow.has(sha)) {
      allowedSeen.push(sha);
      continue;
    }
    violations.push({ sha, subject: git(repoDir, ['log', '--no-show-signature', '-1', '--format=%s', sha]).trim(), ...found });
  }
  const allowedUnused = [...allow.keys()].filter((sha) => !allowedSeen.includes(sha));
  return { violations, commitsChecked: commits.length, codeCommitsChecked, allowedSeen, allowedUnused, baselineFound };
}

/** The working tree's source files: tracked and untracked (not ignored), less the deleted. */
function worktreeSources(repoDir: string): SourceTree {
  const listed = git(repoDir, ['ls-files', '-z', '--cached', '--others', '--exclude-standard']).split('\0');
  const files = new Set(listed.filter((file) => SOURCE_FILE.test(file) && fs.existsSync(path.join(repoDir, file))));
  return {
    has: (file) => files.has(file),
    files: () => files,
    read: (wanted) => new Map(wanted.map((file) => [file, fs.readFileSync(path.join(repoDir, file), 'utf8')])),
  };
}

/** The pending change against HEAD: staged, unstaged and untracked (not ignored) files; `note` stands for its commit message. */
export function findWorktreeViolation(repoDir: string, note = '', baseline: string | null = BASELINE): Violation | null {
  assertRepository(repoDir);
  const tracked = parseNameStatus(git(repoDir, ['diff', 'HEAD', '--name-status', '-z', '--no-renames']));
  const untracked = git(repoDir, ['ls-files', '--others', '--exclude-standard', '-z']).split('\0').filter(Boolean);
  const changes = [...tracked, ...untracked.map((file) => ({ status: 'A', path: file }))];
  const objects = new GitObjects(repoDir);
  const found = judge({ changes, message: () => note, codeRule: baseline !== null, before: () => objects.sourceTree('HEAD'), after: () => worktreeSources(repoDir) });
  return found && { sha: '(working tree)', subject: 'uncommitted changes', ...found };
}

/** What makes this report prove less than it says, apart from violations: a stale allow-list, a missing baseline. */
export function listProblems(report: Report, baseline: string = BASELINE): string[] {
  const problems: string[] = [];
  if (report.allowedUnused.length > 0) {
    problems.push(
      `allow-listed commit(s) ${report.allowedUnused.map((sha) => sha.slice(0, 7)).join(', ')} are not flagged by the rules in this history ` +
        '(not in it, or breaking no rule): remove them from ALLOWED in scripts/check-replay-discipline.ts, or find why the rules no longer see them.',
    );
  }
  if (!report.baselineFound) {
    problems.push(`the baseline ${baseline.slice(0, 7)} (BASELINE in scripts/check-replay-discipline.ts) is not in this repository: rule 2 cannot tell which commits it applies to.`);
  }
  return problems;
}

function usage(): string {
  return "usage: check-replay-discipline.ts [--worktree [--note 'Replay-safe: …']]";
}

function main(argv: string[]): number {
  const repoDir = path.resolve(__dirname, '..');
  const withWorktree = argv.includes('--worktree');
  const noteAt = argv.indexOf('--note');
  const note = noteAt >= 0 ? argv[noteAt + 1] : undefined;
  const unknown = argv.filter((a, i) => a !== '--worktree' && i !== noteAt && !(noteAt >= 0 && i === noteAt + 1));
  if (unknown.length > 0 || (noteAt >= 0 && (note === undefined || !withWorktree))) {
    console.error(`check-replay-discipline: ${unknown.length > 0 ? `unknown argument(s) ${unknown.join(' ')}` : '--note TEXT goes with --worktree'}; ${usage()}`);
    return 2;
  }
  let report: Report;
  let pending: Violation | null = null;
  try {
    report = findViolations(repoDir);
    if (withWorktree) pending = findWorktreeViolation(repoDir, note);
  } catch (error) {
    if (!(error instanceof GitUnavailableError)) throw error;
    console.error(`check-replay-discipline: cannot check: ${error.message}`);
    return 1;
  }
  const stale = listProblems(report);
  if (stale.length > 0) {
    for (const problem of stale) console.error(`check-replay-discipline: ${problem}`);
    return 1;
  }
  const violations = pending ? [...report.violations, pending] : report.violations;
  if (violations.length === 0) {
    const scope = `${report.commitsChecked} commit(s)${withWorktree ? ' and the working tree' : ''}`;
    console.log(
      `check-replay-discipline: OK (${scope}; ${report.codeCommitsChecked} since ${BASELINE.slice(0, 7)} checked for workflow code; ` +
        `${report.allowedSeen.length} allow-listed commit(s) from before the rules)`,
    );
    return 0;
  }
  console.error('check-replay-discipline: commits that break the replay discipline (test/replay/histories/README.md):');
  for (const v of violations) {
    console.error(`  ${v.sha} ${v.subject}`);
    if (v.historyFiles.length > 0) console.error(`    committed histories rewritten: ${v.historyFiles.join(', ')}`);
    if (v.workflowFiles.length > 0) console.error(`    workflow code changed, no new patch id: ${v.workflowFiles.join(', ')}`);
  }
  console.error(
    'A committed history stands for runs in flight: record a new one instead (a deliberate rewrite says why in a ' +
      '`Replay-history: …` line of the commit message). A change to workflow code (workflows/ and the files it imports) ' +
      'that alters the commands a run issues goes behind patched() with a new id in workflows/patches.ts; one that does not ' +
      'says why in a `Replay-safe: …` line of the commit message. A commit already on the branch: check it, then add it to ' +
      'ALLOWED in scripts/check-replay-discipline.ts with the reason.',
  );
  return 1;
}

if (require.main === module) {
  process.exitCode = main(process.argv.slice(2));
}
