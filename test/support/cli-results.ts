import type { CliResult } from './run-cli';

/** Exit 0, nothing on stderr, one JSON object on stdout: that object. */
export function ok(result: CliResult): any {
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
  expect(result.stdout.endsWith('\n') && result.stdout.trim().split('\n')).toHaveLength(1);
  return JSON.parse(result.stdout);
}

/** Exit 1, nothing on stdout, the message on stderr. */
export function refused(result: CliResult, message: RegExp): void {
  expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 1, stdout: '' });
  expect(result.stderr).toMatch(message);
}

/**
 * The --reason and --operator that `merchants set|verify`, `settlements run` and `users create`
 * require (issue 43: settings that move money are audited), for a test about something else.
 */
export const AUDIT_FLAGS = ['--reason', 'test setup', '--operator', 'test@ops'] as const;
