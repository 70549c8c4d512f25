// First: on a Node.js older than 24, one clear line and exit before anything else loads.
import '../support/node-version';
import { startFakePartner } from '../rail/fake-partner';
import { fakePartnerAccess, fakePartnerTiming } from '../runtime/live-partner';

/**
 * The topology's fake partner as a process of its own (npm start runs it inside its API process):
 * FAKE_PARTNER_PORT and FAKE_PARTNER_API_USER/_API_KEY/_SUBSCRIPTION_KEY fixed by the supervisor, so
 * that a restart keeps its address and credentials. What it keeps (transactions, statements) is in
 * memory: a restart forgets it, as a partner's outage with lost state would. SIGUSR1 closes its port
 * and SIGUSR2 opens it again on the same address, its records kept (the `partner_down` fault, issue 46).
 */
async function main(): Promise<void> {
  const fake = await startFakePartner({
    host: '127.0.0.1',
    ...fakePartnerTiming(process.env),
    ...fakePartnerAccess(process.env),
    log: (message, fields) => process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), msg: `fake partner: ${message}`, ...fields })}\n`),
  });
  process.stdout.write(`fake partner listening on ${fake.url}\n`);
  const stop = () => void fake.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  // Issue 46, the chaos run's `partner_down` fault: SIGUSR1 closes the port (what it keeps stays in memory), SIGUSR2 opens it again.
  process.on('SIGUSR1', () => void fake.setListening(false));
  process.on('SIGUSR2', () => void fake.setListening(true));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
