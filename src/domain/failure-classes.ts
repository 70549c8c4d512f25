/** The closed vocabulary of terminal failure reasons (SPEC 7). */
export const FAILURE_CLASSES = [
  'insufficient_funds',
  'invalid_recipient',
  'limit_exceeded',
  'declined',
  'timeout',
  'transport',
  'partner_unavailable',
  'duplicate',
] as const;

export type FailureClass = (typeof FAILURE_CLASSES)[number];

export function isFailureClass(value: unknown): value is FailureClass {
  return typeof value === 'string' && (FAILURE_CLASSES as readonly string[]).includes(value);
}
