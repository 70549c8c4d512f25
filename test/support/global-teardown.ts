export default async function globalTeardown(): Promise<void> {
  const stop = (globalThis as Record<string, unknown>).__paymentsTestStops as (() => Promise<void>) | undefined;
  await stop?.();
}
