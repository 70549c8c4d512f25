import { stopSuite } from './suite-stops';

export default async function globalTeardown(): Promise<void> {
  await stopSuite();
}
