import net from 'node:net';

/**
 * A TCP link between two pieces of the topology (issue 44: partitions in the chaos run): it relays
 * every connection on `listen` to `target`, and can be partitioned. A partition is a black hole, as a
 * network split is: nothing is refused or closed, nothing passes. Every relayed connection stops
 * reading both ways (what was sent waits in the kernel's buffers, then the sender blocks), and a new
 * connection is accepted and held unconnected. Healing resumes them all and connects the held ones:
 * whoever did not give up meanwhile (its own timeouts, keepalives, deadlines) carries on.
 */
export interface Link {
  readonly partitioned: boolean;
  /** Connections relayed now (held ones included). */
  connections(): number;
  partition(): void;
  heal(): void;
  close(): Promise<void>;
}

interface Pair {
  client: net.Socket;
  upstream: net.Socket | null;
}

export async function startLink(listen: number, target: { host: string; port: number }): Promise<Link> {
  const pairs = new Set<Pair>();
  let partitioned = false;
  const connect = (pair: Pair) => {
    const upstream = net.connect(target.port, target.host);
    pair.upstream = upstream;
    pair.client.pipe(upstream);
    upstream.pipe(pair.client);
    const end = () => {
      pair.client.destroy();
      upstream.destroy();
      pairs.delete(pair);
    };
    upstream.on('error', end).on('close', end);
  };
  const server = net.createServer((client) => {
    const pair: Pair = { client, upstream: null };
    pairs.add(pair);
    client.on('error', () => undefined).on('close', () => {
      pair.upstream?.destroy();
      pairs.delete(pair);
    });
    if (partitioned) client.pause();
    else connect(pair);
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(listen, '127.0.0.1', () => resolve()));
  return {
    get partitioned() {
      return partitioned;
    },
    connections: () => pairs.size,
    partition() {
      partitioned = true;
      for (const pair of pairs) {
        pair.client.pause();
        pair.upstream?.pause();
      }
    },
    heal() {
      partitioned = false;
      for (const pair of pairs) {
        if (pair.upstream) {
          pair.upstream.resume();
          pair.client.resume();
        } else {
          pair.client.resume();
          connect(pair);
        }
      }
    },
    async close() {
      for (const pair of pairs) {
        pair.client.destroy();
        pair.upstream?.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
