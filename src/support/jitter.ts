/**
 * Where a retry's jitter comes from: Math.random in production; the deterministic simulation puts a
 * seeded stream in its place (src/simulation/engine.ts; exact replay, issue 44), as it does for ids
 * (new-id.ts `setIdSource`). Workflow code never calls this: a workflow's Math.random is already
 * deterministic (the SDK seeds it per run).
 */
let source: () => number = Math.random;

/** A fraction in [0, 1) for a jitter. */
export function jitterFraction(): number {
  return source();
}

export function setJitterSource(next: () => number): void {
  source = next;
}

export function resetJitterSource(): void {
  source = Math.random;
}
