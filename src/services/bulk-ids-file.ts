import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { isIdOf } from '../domain/ids';
import { paymentTypeOf } from '../domain/payment-types';
import { reviewedPaymentId } from '../domain/payment-review';
import { MAX_BULK_SELECTION } from './bulk-selection';

/**
 * The dry run's ids as a file (issue 31, finding 1): `--save-ids PATH` writes them, one per line
 * under `#` comment lines naming the command, query and token; `--yes --ids-file PATH --query …`
 * acts on exactly the ids in the file (which the operator may shorten by hand), each re-checked
 * against the query first. The file is never overwritten.
 */

export async function writeIdsFile(file: string, ids: readonly string[], header: readonly string[]): Promise<string> {
  const absolute = path.resolve(file);
  const text = [...header.map((line) => `# ${line.replace(/[\r\n]+/g, ' ')}`), ...ids, ''].join('\n');
  try {
    await writeFile(absolute, text, { flag: 'wx' });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw new Error(`--save-ids ${absolute} exists: choose a new file (it is never overwritten)`);
    throw new Error(`--save-ids ${absolute}: cannot write it (${code ?? (error as Error).message})`);
  }
  return absolute;
}

/** The ids of an ids file, in order, each once; a line that is not a payment id is refused with its number. */
export async function readIdsFile(file: string): Promise<string[]> {
  const absolute = path.resolve(file);
  let text: string;
  try {
    text = await readFile(absolute, 'utf8');
  } catch (error) {
    throw new Error(`--ids-file ${absolute}: cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  const ids = new Set<string>();
  const lines = text.split(/\r?\n/);
  for (const [index, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    // A payment's id, or its review's (`review-<payment id>`: payments settle-late|review-close select those).
    const paymentId = reviewedPaymentId(line) ?? line;
    const type = paymentTypeOf(paymentId);
    if (!type || !isIdOf(type, paymentId)) throw new Error(`--ids-file ${absolute}, line ${index + 1}: not a payment id (one id a line; # starts a comment); nothing was done`);
    ids.add(line);
  }
  if (ids.size === 0) throw new Error(`--ids-file ${absolute} holds no payment id; nothing was done`);
  if (ids.size > MAX_BULK_SELECTION) throw new Error(`--ids-file ${absolute} holds ${ids.size} ids, more than ${MAX_BULK_SELECTION}; nothing was done`);
  return [...ids];
}
