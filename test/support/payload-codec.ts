import type { Payload, PayloadCodec } from '@temporalio/common';
import { parseKeyring } from '../../src/support/secret-box';
import { createPayloadCodec } from '../../src/temporal/payload-codec';

let codec: PayloadCodec | undefined;

/** The payload codec of the suite's key (TEST_SECRETS_KEY), as the API, the workers and worker children use it. */
export function testPayloadCodec(): PayloadCodec {
  const key = process.env.TEST_SECRETS_KEY;
  if (!key) throw new Error('TEST_SECRETS_KEY is not set: run through jest (global setup sets it)');
  codec ??= createPayloadCodec(parseKeyring(key));
  return codec;
}

/** A history payload (encrypted by the codec, or not: core's own marker data) as the JSON value it carries. */
export async function decodedJson(payload: Payload): Promise<unknown> {
  const data: unknown = payload.data;
  const [plain] = await testPayloadCodec().decode([typeof data === 'string' ? { ...payload, data: Buffer.from(data, 'base64') } : payload]);
  return JSON.parse(Buffer.from(plain.data ?? new Uint8Array()).toString('utf8'));
}
