import pg from 'pg';

/**
 * The pool's client (every ORM's, src/persistence/orm.ts): pg's own, with two outage rules.
 *
 * 1. **A query past the client's bound closes its connection.** pg's `query_timeout` fails the caller
 *    with "Query read timeout" but keeps the query as the connection's active one, and a ROLLBACK sent
 *    after it waits behind it. Reused, such a connection would carry an open transaction into the next
 *    request, whose COMMIT could commit the first request's partial writes once the server answers
 *    again. This client closes its socket before the caller sees the error; the server, once it runs
 *    again, finds the socket closed and aborts the transaction.
 * 2. **A ROLLBACK on a connection that is gone, or that goes while it runs, succeeds.** Kysely (under MikroORM) releases a
 *    transaction's connection only after its ROLLBACK (or COMMIT) succeeded, so a ROLLBACK failing on
 *    a dead connection would keep that connection checked out of the pool forever: one slot lost per
 *    transaction cut by a timeout or a crashed server. A transaction whose socket is closed can never
 *    commit (the server aborts it), so the ROLLBACK is answered as done, the connection is released,
 *    and the pool drops it (the client is ended first, so `_ending`) instead of handing it out again. A
 *    ROLLBACK refused by a live server still fails.
 *
 * A submittable (pg-cursor: MikroORM's `stream()`) that times out is not closed by rule 1: nothing in
 * this project streams; a caller that starts to must close its client itself on a read timeout.
 */
export class BoundedQueryClient extends pg.Client {
  // pg's overloads (text, config, submittable; promise or callback) are passed through untouched.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override query(...args: any[]): any {
    const last = args.length > 0 ? args[args.length - 1] : undefined;
    const callback = typeof last === 'function' ? (last as (error: unknown, result?: unknown) => void) : undefined;
    if (isRollback(args[0])) {
      const done = { command: 'ROLLBACK', rowCount: null, rows: [], fields: [] };
      if (this.isGone()) {
        this.end().catch(() => {});
        if (callback) return void process.nextTick(() => callback(null, done));
        return Promise.resolve(done);
      }
      if (!callback) {
        // The link can go while the ROLLBACK is on its way (a killed session: its FATAL reaches the
        // query before, the end of the socket fails the ROLLBACK): that transaction is gone too.
        // eslint-disable-next-line @typescript-eslint/no-explicit-any
        return ((super.query as any)(...args) as Promise<unknown>).catch((error: unknown) => {
          if (!this.isGone() && !isLinkGone(error)) throw error;
          this.end().catch(() => {});
          return done;
        });
      }
    }
    if (callback) {
      args[args.length - 1] = (error: unknown, result: unknown) => {
        this.closeAfterReadTimeout(error);
        callback(error, result);
      };
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      return (super.query as any)(...args);
    }
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const result = (super.query as any)(...args);
    // Registered before the caller's own handlers, so the socket is closed before the caller reacts.
    if (result && typeof result.then === 'function') (result as Promise<unknown>).catch((error: unknown) => this.closeAfterReadTimeout(error));
    return result;
  }

  /** Closed by us, ended by the server, or broken by a socket error: no transaction on it can commit. */
  private isGone(): boolean {
    const state = this as unknown as { _ending?: boolean; _ended?: boolean; _queryable?: boolean };
    return state._ending === true || state._ended === true || state._queryable === false;
  }

  private closeAfterReadTimeout(error: unknown): void {
    if (!isReadTimeout(error)) return;
    // With a query still active, end() destroys the socket rather than waiting for the server.
    this.end().catch(() => {});
  }
}

export function isReadTimeout(error: unknown): boolean {
  return error instanceof Error && error.message === 'Query read timeout';
}

/** The connection itself failed (not the statement): pg's words, or the server ending the session. */
function isLinkGone(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (/^08/.test(code) || ['57P01', '57P02', '57P03'].includes(code))) return true;
  return /connection terminated|not queryable|query read timeout/i.test(error.message);
}

function isRollback(query: unknown): boolean {
  const text = typeof query === 'string' ? query : typeof query === 'object' && query !== null ? (query as { text?: unknown }).text : undefined;
  return typeof text === 'string' && /^\s*rollback\s*;?\s*$/i.test(text);
}
