/**
 * A start-up failure the operator can fix: its message names the cause and the fix on one line, and
 * `npm start` prints only that line (no stack trace).
 */
export class StartupError extends Error {
  override name = 'StartupError';
}
