// First: on a Node.js older than 24, one clear line and exit before anything else loads.
import '../support/node-version';
import { startLink } from './link';

/**
 * A link piece of the topology (src/topology/link.ts): TOPOLOGY_LINK_LISTEN relayed to
 * TOPOLOGY_LINK_TARGET (host:port). SIGUSR1 partitions it, SIGUSR2 heals it (the chaos run's
 * `partition` fault); each change is printed with the connections it holds.
 */
async function main(): Promise<void> {
  const listen = Number(process.env.TOPOLOGY_LINK_LISTEN);
  const [host, port] = (process.env.TOPOLOGY_LINK_TARGET ?? '').split(':');
  if (!listen || !host || !Number(port)) throw new Error('TOPOLOGY_LINK_LISTEN and TOPOLOGY_LINK_TARGET (host:port) are required');
  const link = await startLink(listen, { host, port: Number(port) });
  const say = (line: string) => process.stdout.write(`${new Date().toISOString()} link 127.0.0.1:${listen} -> ${host}:${port}: ${line}\n`);
  say('relaying');
  process.on('SIGUSR1', () => {
    link.partition();
    say(`partitioned (${link.connections()} connections held)`);
  });
  process.on('SIGUSR2', () => {
    link.heal();
    say(`healed (${link.connections()} connections)`);
  });
  const stop = () => void link.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
