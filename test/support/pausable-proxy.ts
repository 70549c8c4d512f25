/**
 * A TCP proxy in front of a real server (the Temporal dev server) that can stop forwarding: while
 * paused, bytes are held in both directions, so a call already on an open connection waits for an
 * answer that does not come, as with a server stopped by SIGSTOP or a network that drops packets.
 */
import net from 'node:net';

export interface PausableProxy {
  /** host:port to connect to. */
  address: string;
  pause(): void;
  /** Forwards again, held bytes first. */
  resume(): void;
  close(): Promise<void>;
}

export async function startPausableProxy(target: string): Promise<PausableProxy> {
  const [host, port] = [target.slice(0, target.lastIndexOf(':')), Number(target.slice(target.lastIndexOf(':') + 1))];
  let paused = false;
  const pipes = new Set<{ flush(): void; destroy(): void }>();
  const server = net.createServer((inbound) => {
    const outbound = net.connect(port, host);
    const held: Array<[net.Socket, Buffer]> = [];
    const forward = (to: net.Socket) => (chunk: Buffer) => (paused ? held.push([to, chunk]) : to.write(chunk));
    inbound.on('data', forward(outbound));
    outbound.on('data', forward(inbound));
    const pipe = {
      flush: () => held.splice(0).forEach(([to, chunk]) => to.write(chunk)),
      destroy: () => {
        inbound.destroy();
        outbound.destroy();
      },
    };
    pipes.add(pipe);
    const end = () => {
      pipes.delete(pipe);
      pipe.destroy();
    };
    inbound.on('close', end).on('error', end);
    outbound.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    pause: () => {
      paused = true;
    },
    resume: () => {
      paused = false;
      pipes.forEach((p) => p.flush());
    },
    close: () =>
      new Promise<void>((resolve) => {
        pipes.forEach((p) => p.destroy());
        server.close(() => resolve());
      }),
  };
}
