/** A command-line count (`--events 3_000_000`): a whole number ≥ 0, underscores allowed; anything else throws naming it. */
export function countOption(value: string): number {
  const n = Number(value.replace(/_/g, ''));
  if (!Number.isInteger(n) || n < 0) throw new Error(`not a count: ${value}`);
  return n;
}
