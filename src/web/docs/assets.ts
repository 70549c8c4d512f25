import fs from 'node:fs';
import type Koa from 'koa';
import { docsFile } from './files';

/**
 * What /docs/assets/ serves: a fixed list, nothing looked up from the request's path. Redoc's
 * standalone bundle comes from node_modules (the version package.json pins); the rest is ours.
 */
const ASSETS: Record<string, { file: () => string; type: string }> = {
  'redoc.standalone.js': { file: () => require.resolve('redoc/bundles/redoc.standalone.js'), type: 'application/javascript; charset=utf-8' },
  'reference.js': { file: () => docsFile('assets/reference.js'), type: 'application/javascript; charset=utf-8' },
  'console.js': { file: () => docsFile('assets/console.js'), type: 'application/javascript; charset=utf-8' },
  'docs.css': { file: () => docsFile('assets/docs.css'), type: 'text/css; charset=utf-8' },
};

export const ASSET_NAMES = Object.keys(ASSETS);

/** Answers /docs/assets/:name, or leaves the request to the 404. */
export function serveAsset(ctx: Koa.Context, name: string): boolean {
  const asset = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
  if (!asset) return false;
  ctx.type = asset.type;
  ctx.body = fs.createReadStream(asset.file());
  return true;
}
