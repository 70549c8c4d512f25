/**
 * What the global setups started, stopped in reverse order by the global teardown. Global setup and
 * teardown run in jest's main process, so a module-level list would be loaded twice (each hook is
 * transpiled and required on its own): the list lives on globalThis.
 */
type Stop = () => Promise<void> | void;

const KEY = '__paymentsTestStops';

function stops(): Stop[] {
  const holder = globalThis as unknown as Record<string, Stop[] | undefined>;
  holder[KEY] ??= [];
  return holder[KEY];
}

export function onSuiteEnd(stop: Stop): void {
  stops().push(stop);
}

export async function stopSuite(): Promise<void> {
  const list = stops().splice(0).reverse();
  for (const stop of list) await stop();
}
