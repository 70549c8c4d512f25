import { Client } from 'pg';

/**
 * Test-only preload for the worker child of the crash tests (test/support/worker-child.ts, option
 * `preload`; never imported by the project's own code): it makes the worker process die like a
 * crashed machine (SIGKILL, no drain) right after named database steps COMMITTED and before any of
 * them returned to its activity, so no workflow can have recorded their results. What the next worker
 * runs again is the real store function, with the same request.
 *
 * `CRASH_AFTER_COMMIT_OF` names the steps: a comma-separated list of event dedupe keys
 * (`<resource id>:<event type>`, e.g. `po_…:payout.succeeded`). Every state change inserts its event
 * as its last write (src/persistence/events/event-log.ts) with that key among the values (the ORM sends
 * them inlined as literals), so the transaction that inserts the key is the step's; a later run of
 * the step only reads it. The hook wraps pg's `Client.prototype.query` (every statement of the ORM
 * goes through it, on the connection that holds the transaction): an INSERT carrying an armed key
 * marks the connection; once that connection's `commit` is answered, the commit's caller is held (the
 * promise never settles: the store function never returns), and when every armed key has committed
 * the process tells the parent over IPC `{ crashAfterCommit: [keys] }` and SIGKILLs itself. A key
 * still not committed HOLD_LIMIT_MS after the first one was (the local activities' start-to-close
 * timeout is 30 s: past it the SDK would run a held step again in this process) kills the process
 * anyway, and the message names only what did commit.
 *
 * Without the variable the module changes nothing.
 */

const HOLD_LIMIT_MS = 20_000;

const armed = new Set(
  (process.env.CRASH_AFTER_COMMIT_OF ?? '')
    .split(',')
    .map((key) => key.trim())
    .filter((key) => key.length > 0),
);

if (armed.size > 0) install();

function install(): void {
  const committed = new Set<string>();
  const marked = new WeakMap<object, Set<string>>();
  let deadline: NodeJS.Timeout | undefined;

  const die = () => {
    const report = { crashAfterCommit: [...committed] };
    process.stderr.write(`crash-after-commit: SIGKILL after the commit of ${report.crashAfterCommit.join(', ') || 'nothing'}\n`);
    const kill = () => process.kill(process.pid, 'SIGKILL');
    if (process.send) process.send(report, kill);
    else kill();
    setTimeout(kill, 500).unref();
  };

  const hold = (keys: Set<string>): Promise<never> => {
    for (const key of keys) committed.add(key);
    if ([...armed].every((key) => committed.has(key))) die();
    else deadline ??= setTimeout(die, HOLD_LIMIT_MS);
    return new Promise<never>(() => {});
  };

  type Query = (this: object, config: unknown, values?: unknown, callback?: unknown) => unknown;
  const original = Client.prototype.query as unknown as Query;
  const wrapped: Query = function (this: object, config, values, callback) {
    const text = typeof config === 'string' ? config : ((config as { text?: unknown } | null)?.text ?? '');
    const params = Array.isArray(values) ? values : ((config as { values?: unknown } | null)?.values ?? []);
    const result = original.call(this, config, values, callback);
    if (typeof text !== 'string') return result;
    const statement = text.trim().toLowerCase();
    // Issue 48: the event goes in with the counter, postings and balances, in one `with … insert` statement.
    if (statement.startsWith('insert') || statement.startsWith('with')) {
      // The ORM sends values inlined in the text; a bound parameter is looked at too.
      const bound = Array.isArray(params) ? params.filter((value): value is string => typeof value === 'string') : [];
      for (const key of armed) {
        if (committed.has(key) || !(text.includes(`'${key}'`) || bound.includes(key))) continue;
        const keys = marked.get(this) ?? new Set<string>();
        keys.add(key);
        marked.set(this, keys);
      }
    }
    const keys = marked.get(this);
    if (keys && (statement.startsWith('rollback') || statement.startsWith('commit'))) marked.delete(this);
    if (keys && statement.startsWith('commit') && result instanceof Promise) return result.then(() => hold(keys));
    return result;
  };
  Client.prototype.query = wrapped as unknown as typeof Client.prototype.query;
}
