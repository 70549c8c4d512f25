import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Config } from '../config';

/** Where `npm start` leaves a generated codec token for the operator (DATA_DIR/codec-token, mode 0600). */
export const CODEC_TOKEN_FILE = 'codec-token';

export interface CodecToken {
  token: string;
  /** CODEC_AUTH_TOKEN: the operator's own; else generated at this start. */
  fromSettings: boolean;
  /** The file holding a generated token (none for CODEC_AUTH_TOKEN: the operator has it already). */
  file?: string;
}

/**
 * The codec endpoint's token (issue 47, finding 8): CODEC_AUTH_TOKEN when set, else 32 random bytes
 * (hex) made at this start, written to DATA_DIR/codec-token with mode 0600 (replaced, never appended)
 * so an operator's own scripts can call the endpoint; never logged nor printed. A new start makes a
 * new one, and hands it to the Temporal UI it starts.
 */
export function codecToken(config: Config): CodecToken {
  if (config.codec.authToken) return { token: config.codec.authToken, fromSettings: true };
  const token = randomBytes(32).toString('hex');
  fs.mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(config.dataDir, CODEC_TOKEN_FILE);
  fs.rmSync(file, { force: true });
  fs.writeFileSync(file, `${token}\n`, { mode: 0o600, flag: 'wx' });
  return { token, fromSettings: false, file };
}
