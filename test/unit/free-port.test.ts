import net from 'node:net';
import { freePort, pickRange } from '../../src/support/free-port';

describe('freePort', () => {
  test('picks outside the kernel ephemeral range, where an outgoing connection cannot take the port before its server binds it', () => {
    expect(pickRange([32768, 60999])).toEqual([10_000, 16_999]);
    expect(pickRange([15000, 60999])).toEqual([10_000, 14_999]);
    expect(pickRange([1024, 14000])).toEqual([14_001, 16_999]);
    // No room of 1,000 ports outside it: the caller falls back to listen(0).
    expect(pickRange([1024, 65535])).toBeUndefined();
  });

  test('gives a port that a server can bind, from that range here', async () => {
    const port = await freePort();
    expect(port).toBeGreaterThanOrEqual(10_000);
    expect(port).toBeLessThanOrEqual(16_999);
    const server = net.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
    await new Promise((resolve) => server.close(resolve));
  });
});
