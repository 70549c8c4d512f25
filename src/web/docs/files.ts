import fs from 'node:fs';
import path from 'node:path';

/**
 * A file of the reference site that is not TypeScript (guides, our own scripts and stylesheet), by
 * its path under src/web/docs/: beside this module when run from source (tsx, jest), else in the
 * source tree next to dist/ (a build keeps them where they are).
 */
export function docsFile(relative: string): string {
  const beside = path.join(__dirname, relative);
  if (fs.existsSync(beside)) return beside;
  return path.resolve(__dirname, '../../../../src/web/docs', relative);
}
