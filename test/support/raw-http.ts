import net from 'node:net';

/** What a server answered on one raw connection, and when it closed it. */
export interface RawAnswer {
  /** The status of the first answer, or 0 when none came before the close. */
  status: number;
  /** Header names in lower case (the first answer's). */
  headers: Record<string, string>;
  body: string;
  /** Milliseconds from the connection's open to its close. */
  closedAfterMs: number;
}

export interface RawConnection {
  socket: net.Socket;
  /** Resolves when the connection closes (by either side), with what was received. */
  closed: Promise<RawAnswer>;
  /** Writes `data` now; a write after the close is ignored. */
  write(data: string | Buffer): void;
  /** Writes `line` every `everyMs` until the connection closes (a slowloris client). */
  trickle(line: (n: number) => string, everyMs: number): void;
}

function parse(text: string, closedAfterMs: number): RawAnswer {
  const end = text.indexOf('\r\n\r\n');
  if (!text.startsWith('HTTP/1.1 ') || end < 0) return { status: 0, headers: {}, body: text, closedAfterMs };
  const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine.split(' ')[1]), headers, body: text.slice(end + 4), closedAfterMs };
}

/** A raw TCP connection to 127.0.0.1:`port`, to send what no HTTP client would (test/integration/hostile-*.test.ts). */
export async function openRaw(port: number): Promise<RawConnection> {
  const socket = net.connect({ host: '127.0.0.1', port });
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const opened = Date.now();
  let received = '';
  let open = true;
  let timer: NodeJS.Timeout | undefined;
  socket.on('data', (d: Buffer) => (received += d.toString('utf8')));
  socket.on('error', () => undefined); // a write racing the server's close
  const closed = new Promise<RawAnswer>((resolve) =>
    socket.once('close', () => {
      open = false;
      clearInterval(timer);
      resolve(parse(received, Date.now() - opened));
    }),
  );
  const write = (data: string | Buffer) => {
    if (open && !socket.destroyed) socket.write(data);
  };
  return {
    socket,
    closed,
    write,
    trickle(line, everyMs) {
      let n = 0;
      timer = setInterval(() => write(line(n++)), everyMs);
    },
  };
}
