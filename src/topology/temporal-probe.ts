import { Connection } from '@temporalio/client';
import type { Health } from './state';

/**
 * A health probe of a Temporal frontend: GetSystemInfo within 2 s on one kept connection (opened
 * again after a failure). `ok` once it answers.
 */
export function temporalProbe(address: string, _namespace: string): () => Promise<Exclude<Health, 'down'>> {
  let connection: Connection | undefined;
  return async () => {
    try {
      connection ??= await Connection.connect({ address, connectTimeout: 2_000 });
      await connection.withDeadline(Date.now() + 2_000, () => connection!.workflowService.getSystemInfo({}));
      return 'ok';
    } catch {
      const stale = connection;
      connection = undefined;
      await stale?.close().catch(() => {});
      return 'starting';
    }
  };
}

/** One GetSystemInfo on a connection of its own, closed after: for a one-off `status`. */
export async function temporalAnswersOnce(address: string): Promise<boolean> {
  let connection: Connection | undefined;
  try {
    connection = await Connection.connect({ address, connectTimeout: 2_000 });
    const c = connection;
    await c.withDeadline(Date.now() + 2_000, () => c.workflowService.getSystemInfo({}));
    return true;
  } catch {
    return false;
  } finally {
    await connection?.close().catch(() => {});
  }
}
