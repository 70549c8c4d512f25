import { performance } from 'node:perf_hooks';
import { WorkflowNotFoundError } from '@temporalio/client';
import { Pool } from 'undici';
import { COMPLETION_DELAY_MS } from '../../../src/domain/sandbox-outcome';
import type { BenchInfra } from './infra';

/**
 * How the bench learns that a charge reached `succeeded`, without relying on how the create path
 * works inside:
 * - `result`: the workflow whose id is the charge id, `handle.result()` (a long poll on Temporal;
 *   no load on the API). Used when that workflow ends with the charge, as it did before issue 8.
 * - `poll`: GET /v1/charges/{id} until the status is terminal (first look after the sandbox
 *   completion delay, then every POLL_MS). Used when there is no such workflow, when it stays open
 *   after `succeeded`, or when its result is not the charge.
 * `result` falls back to `poll` for a charge whose workflow is not found or returns no status.
 */
export type CompletionMode = 'result' | 'poll';

const POLL_MS = 100;
/** A charge still in flight this long after its create answered is reported as an error. */
const POLL_GIVE_UP_MS = 120_000;
const TERMINAL = new Set(['succeeded', 'failed', 'expired', 'reversed', 'refunded']);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface CompletionWaiter {
  mode: CompletionMode;
  /** Resolves once charge `id` (created at performance.now() = `createdAt`) is `succeeded`; throws otherwise. */
  wait(id: string, createdAt: number): Promise<void>;
  close(): Promise<void>;
}

export function completionWaiter(infra: BenchInfra, key: string, mode: CompletionMode, connections = 20): CompletionWaiter {
  const pool = new Pool(infra.apiUrl, { connections, pipelining: 1 });
  const headers = { authorization: `Bearer ${key}` };

  async function status(id: string): Promise<string> {
    const res = await pool.request({ path: `/v1/charges/${encodeURIComponent(id)}`, method: 'GET', headers });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`GET /v1/charges/${id}: HTTP ${res.statusCode}: ${text.slice(0, 200)}`);
    return (JSON.parse(text) as { status: string }).status;
  }

  async function poll(id: string, createdAt: number): Promise<void> {
    const firstLook = createdAt + COMPLETION_DELAY_MS - performance.now();
    if (firstLook > 0) await sleep(firstLook);
    for (;;) {
      const s = await status(id);
      if (s === 'succeeded') return;
      if (TERMINAL.has(s)) throw new Error(`${id} ended ${s}`);
      if (performance.now() - createdAt > POLL_GIVE_UP_MS) throw new Error(`${id} still ${s} ${POLL_GIVE_UP_MS / 1000} s after its create`);
      await sleep(POLL_MS);
    }
  }

  async function result(id: string, createdAt: number): Promise<void> {
    let final: unknown;
    try {
      final = await infra.temporal.client.workflow.getHandle(id).result();
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return poll(id, createdAt);
      throw error;
    }
    const s = (final as { status?: unknown } | null)?.status;
    if (s === 'succeeded') return;
    if (typeof s === 'string') throw new Error(`${id} ended ${s}`);
    return poll(id, createdAt);
  }

  return { mode, wait: mode === 'result' ? result : poll, close: () => pool.close() };
}

/**
 * Looks at charges that already succeeded (the warm-up, awaited by polling): `result` if each has a
 * workflow with its id that completed with the charge as its result, else `poll`, with the reason.
 */
export async function detectCompletionMode(infra: BenchInfra, chargeIds: string[]): Promise<{ mode: CompletionMode; why: string }> {
  const client = infra.temporal.client.workflow;
  if (chargeIds.length === 0) return { mode: 'poll', why: 'no warm-up charge to look at' };
  for (const id of chargeIds) {
    let state = 'unknown';
    try {
      for (let i = 0; i < 30; i++) {
        state = (await client.getHandle(id).describe()).status.name;
        if (state !== 'RUNNING') break;
        await sleep(100);
      }
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return { mode: 'poll', why: `no workflow has the charge id (${id})` };
      throw error;
    }
    if (state === 'RUNNING') return { mode: 'poll', why: `the workflow ${id} stays open after the charge succeeded` };
    if (state !== 'COMPLETED') return { mode: 'poll', why: `the workflow ${id} ended ${state}` };
    const final = (await client.getHandle(id).result()) as { status?: unknown } | null;
    if (final?.status !== 'succeeded') return { mode: 'poll', why: `the workflow ${id} does not return the charge` };
  }
  return { mode: 'result', why: `it completes with the charge as its result (checked on ${chargeIds.length} warm-up charges)` };
}
