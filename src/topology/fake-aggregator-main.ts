// First: on a Node.js older than 24, one clear line and exit before anything else loads.
import '../support/node-version';
import { startFakeAggregator } from '../rail/aggregator/fake';

/**
 * The topology's fake aggregator as a process of its own (issue 45; npm start runs it inside its API
 * process): FAKE_AGGREGATOR_PORT, AGGREGATOR_SECRET_KEY, AGGREGATOR_WEBHOOK_HASH and AGGREGATOR_ENCRYPTION_KEY fixed by the
 * supervisor (the APIs and workers get the same), its webhooks to FAKE_AGGREGATOR_WEBHOOK_URL (the
 * proxy's live port). What it keeps is in memory: a restart forgets it, as a partner's outage with
 * lost state would. SIGUSR1 closes its port and SIGUSR2 opens it again on the same address, its
 * records kept (the `partner_down` fault, issue 46).
 */
async function main(): Promise<void> {
  const port = Number(process.env.FAKE_AGGREGATOR_PORT);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error('FAKE_AGGREGATOR_PORT must be a port number');
  const fake = await startFakeAggregator({
    host: '127.0.0.1',
    port,
    secretKey: process.env.AGGREGATOR_SECRET_KEY,
    webhookHash: process.env.AGGREGATOR_WEBHOOK_HASH,
    encryptionKey: process.env.AGGREGATOR_ENCRYPTION_KEY || undefined,
    webhookUrl: process.env.FAKE_AGGREGATOR_WEBHOOK_URL,
    log: (message, fields) => process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), msg: `fake aggregator: ${message}`, ...fields })}\n`),
  });
  process.stdout.write(`fake aggregator listening on ${fake.url}\n`);
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
