/**
 * A tiny authoritative DNS server on 127.0.0.1 (UDP) for the resolver tests: A and AAAA answers from a
 * table, NXDOMAIN for names it does not know, and silence for names listed as `silent` (a dead name
 * server). Counts the queries it gets.
 */
import dgram from 'node:dgram';
import net from 'node:net';

export interface FakeDns {
  server: string;
  queries: Array<{ name: string; type: number }>;
  close(): Promise<void>;
}

const A = 1;
const AAAA = 28;

function readName(msg: Buffer, offset: number): { name: string; end: number } {
  const labels: string[] = [];
  let i = offset;
  while (msg[i] !== 0) {
    const length = msg[i];
    labels.push(msg.subarray(i + 1, i + 1 + length).toString('ascii'));
    i += length + 1;
  }
  return { name: labels.join('.').toLowerCase(), end: i + 1 };
}

function rdata(type: number, address: string): Buffer | undefined {
  if (type === A && net.isIPv4(address)) return Buffer.from(address.split('.').map(Number));
  if (type === AAAA && net.isIPv6(address)) {
    const [head, tail = ''] = address.split('::');
    const h = head ? head.split(':') : [];
    const t = tail ? tail.split(':') : [];
    const groups = address.includes('::') ? [...h, ...Array(8 - h.length - t.length).fill('0'), ...t] : h;
    const out = Buffer.alloc(16);
    groups.forEach((g, k) => out.writeUInt16BE(parseInt(g, 16), k * 2));
    return out;
  }
  return undefined;
}

export async function startFakeDns(records: Record<string, string[]>, options: { silent?: string[] } = {}): Promise<FakeDns> {
  const socket = dgram.createSocket('udp4');
  const queries: FakeDns['queries'] = [];
  socket.on('message', (msg, peer) => {
    const { name, end } = readName(msg, 12);
    const type = msg.readUInt16BE(end);
    queries.push({ name, type });
    if (options.silent?.includes(name)) return;
    const known = records[name];
    const answers = (known ?? []).map((address) => rdata(type, address)).filter((r): r is Buffer => r !== undefined);
    const header = Buffer.alloc(12);
    msg.copy(header, 0, 0, 2);
    header.writeUInt16BE(known ? 0x8580 : 0x8583, 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(answers.length, 6);
    const question = msg.subarray(12, end + 4);
    const rrs = answers.map((data) => {
      const rr = Buffer.alloc(12);
      rr.writeUInt16BE(0xc00c, 0);
      rr.writeUInt16BE(type, 2);
      rr.writeUInt16BE(1, 4);
      rr.writeUInt32BE(60, 6);
      rr.writeUInt16BE(data.length, 10);
      return Buffer.concat([rr, data]);
    });
    socket.send(Buffer.concat([header, question, ...rrs]), peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    server: `127.0.0.1:${socket.address().port}`,
    queries,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
