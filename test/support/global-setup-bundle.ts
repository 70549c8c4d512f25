import { commonSuiteSetup } from './suite-setup';

/** The unit, replay and time-skipping projects need no servers: only the workflow bundle and the suite's key. */
export default async function globalSetup(): Promise<void> {
  await commonSuiteSetup();
}
