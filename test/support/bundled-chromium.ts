/**
 * The headless Chromium that ships inside the npm package @sparticuz/chromium (pinned exactly in
 * devDependencies, so `npm install` / `npm ci` bring it; nothing is downloaded at run time). The
 * package holds brotli-compressed files for Linux x64: the browser (bin/chromium.br), the shared
 * libraries it needs that a bare Linux may lack (bin/al2023.tar.br: NSS, NSPR, expat), a font
 * (bin/fonts.tar.br) and SwiftShader (bin/swiftshader.tar.br). They are unpacked once, with Node's
 * brotli and the system's `tar`, into .cache/chromium/<version>/ (a temporary folder renamed into
 * place, so parallel jest workers never see half a browser). Used only when neither CHROMIUM_PATH
 * nor Debian's chromium is there (test/support/chromium.ts).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

const ROOT = path.resolve(__dirname, '../..');
const PACKAGE = '@sparticuz/chromium';

/** A browser to launch: its executable, what to add to its environment, and where it came from. */
export interface ChromiumBinary {
  executablePath: string;
  env: Record<string, string>;
  source: string;
}

export interface BundledOptions {
  packageDir?: string;
  cacheDir?: string;
  platform?: string;
}

function brotli(file: string): Buffer {
  return zlib.brotliDecompressSync(fs.readFileSync(file));
}

function unpack(binDir: string, into: string, finalDir: string): void {
  fs.writeFileSync(path.join(into, 'chromium'), brotli(path.join(binDir, 'chromium.br')), { mode: 0o755 });
  for (const archive of ['al2023.tar.br', 'fonts.tar.br', 'swiftshader.tar.br'])
    execFileSync('tar', ['-x', '-C', into], { input: brotli(path.join(binDir, archive)), maxBuffer: 1 << 30 });
  // The package's fonts.conf names Lambda's folders: one naming this cache instead (used only on a
  // system without fontconfig's own, see below).
  fs.writeFileSync(
    path.join(into, 'fonts.conf'),
    `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n  <dir>${finalDir}/fonts</dir>\n  <cachedir>${finalDir}/fonts-cache</cachedir>\n</fontconfig>\n`,
  );
}

/** The bundled browser, unpacked on first use; or why it cannot be had here. */
export function bundledChromium(options: BundledOptions = {}): ChromiumBinary | { problem: string } {
  const platform = options.platform ?? `${process.platform}-${process.arch}`;
  if (platform !== 'linux-x64') return { problem: `${PACKAGE} ships a browser for linux-x64 only (this is ${platform})` };
  const packageDir = options.packageDir ?? path.join(ROOT, 'node_modules', PACKAGE);
  const binDir = path.join(packageDir, 'bin');
  if (!fs.existsSync(path.join(binDir, 'chromium.br'))) return { problem: `${PACKAGE} is not installed (no ${path.join(binDir, 'chromium.br')})` };
  const version = (JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as { version: string }).version;
  const cacheDir = options.cacheDir ?? path.join(ROOT, '.cache/chromium');
  const dir = path.join(cacheDir, version);
  const executablePath = path.join(dir, 'chromium');
  if (!fs.existsSync(executablePath)) {
    fs.mkdirSync(cacheDir, { recursive: true });
    const tmp = fs.mkdtempSync(path.join(cacheDir, `.${version}-`));
    try {
      unpack(binDir, tmp, dir);
      fs.renameSync(tmp, dir);
    } catch (error) {
      if (!fs.existsSync(executablePath)) throw new Error(`Could not unpack ${PACKAGE} ${version} into ${dir}: ${String(error)}`);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  }
  const env: Record<string, string> = { LD_LIBRARY_PATH: [path.join(dir, 'lib'), process.env.LD_LIBRARY_PATH].filter(Boolean).join(':') };
  if (!fs.existsSync('/etc/fonts/fonts.conf')) env.FONTCONFIG_FILE = path.join(dir, 'fonts.conf');
  return { executablePath, env, source: `${PACKAGE} ${version}` };
}
