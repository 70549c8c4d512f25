import type { Harness } from './harness';

/**
 * Fires the sandbox timer a payment's workflow waits on now, through `POST /v1/sandbox/advance/{id}`
 * as a merchant would, instead of waiting out the three seconds: for tests that are not about the
 * wait itself (each timer kind keeps one test that waits in real time). Waits for the workflow to
 * reach its timer (the API answers 409 `nothing_to_advance` until then), then for its result.
 */
export async function completeNow<T = { status: string }>(h: Harness, key: string, id: string, timeoutMs = 30_000): Promise<T> {
  const handle = h.temporal.client.workflow.getHandle(id);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await h.request('sandbox', 'POST', `/v1/sandbox/advance/${id}`, { key });
    if (res.status === 200) break;
    const waiting = res.status === 409 && res.json?.error?.code === 'nothing_to_advance';
    // Finished by itself (its timer fired first): nothing left to advance.
    // (A workflow not started yet, by a relay, is not found: it is still to come.)
    const status = waiting ? await handle.describe().then((d) => d.status.name, () => 'NOT_STARTED') : undefined;
    if (status && status !== 'RUNNING' && status !== 'NOT_STARTED') break;
    if (!waiting || Date.now() > deadline) throw new Error(`advance ${id}: ${res.status} ${res.text}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return handle.result() as Promise<T>;
}
