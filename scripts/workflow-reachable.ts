/**
 * The workflow code of a commit, read from git (scripts/check-replay-discipline.ts): every file under
 * workflows/ and every file they import, transitively (relative imports; type-only imports are left
 * out, they are erased before bundling). An edit to any of them can change the commands a run issues
 * (src/domain/charge-start.ts decides a charge's first steps, for instance), so the check treats them
 * all as workflow code. `sameRuntimeCode` tells an edit that changes nothing at run time (comments,
 * types, formatting) from one that does: it compares the tokens of the JavaScript TypeScript emits.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import ts from 'typescript';

export const WORKFLOWS_DIR = 'workflows/';

const SOURCE = /\.(ts|tsx|mts|cts|js|mjs|cjs|json)$/;

/** A tree of source files: a commit's, or the working tree's. */
export interface SourceTree {
  has(file: string): boolean;
  files(): Iterable<string>;
  /** The texts of these files (all present). */
  read(files: string[]): Map<string, string>;
}

/** Blobs and trees of one repository, read with git and cached by object id. */
export class GitObjects {
  private readonly blobs = new Map<string, string>();
  private readonly trees = new Map<string, Map<string, string>>();

  constructor(private readonly repoDir: string) {}

  private git(args: string[], input?: string): Buffer {
    const result = spawnSync('git', ['-c', 'core.quotePath=false', ...args], { cwd: this.repoDir, input, maxBuffer: 512 * 1024 * 1024 });
    if (result.error) throw result.error;
    if (result.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${result.stderr.toString().trim()}`);
    return result.stdout;
  }

  /** path -> blob id of every source file in the commit's tree. */
  tree(commit: string): Map<string, string> {
    let tree = this.trees.get(commit);
    if (!tree) {
      tree = new Map();
      for (const entry of this.git(['ls-tree', '-r', '-z', commit]).toString('utf8').split('\0')) {
        const match = /^\d+ blob ([0-9a-f]+)\t(.+)$/.exec(entry);
        if (match && SOURCE.test(match[2])) tree.set(match[2], match[1]);
      }
      this.trees.set(commit, tree);
    }
    return tree;
  }

  /** The text of each blob (read in one `git cat-file --batch`). */
  texts(ids: Iterable<string>): Map<string, string> {
    const missing = [...new Set(ids)].filter((id) => !this.blobs.has(id));
    if (missing.length > 0) {
      const out = this.git(['cat-file', '--batch'], missing.join('\n') + '\n');
      let at = 0;
      for (const id of missing) {
        const headerEnd = out.indexOf(0x0a, at);
        const [oid, , size] = out.subarray(at, headerEnd).toString('utf8').split(' ');
        const start = headerEnd + 1;
        this.blobs.set(oid ?? id, out.subarray(start, start + Number(size)).toString('utf8'));
        at = start + Number(size) + 1;
      }
    }
    return new Map([...ids].map((id) => [id, this.blobs.get(id)!]));
  }

  /** The commit's tree as a SourceTree. */
  sourceTree(commit: string): SourceTree {
    const tree = this.tree(commit);
    return {
      has: (file) => tree.has(file),
      files: () => tree.keys(),
      read: (files) => {
        const texts = this.texts(files.map((file) => tree.get(file)!));
        return new Map(files.map((file) => [file, texts.get(tree.get(file)!)!]));
      },
    };
  }
}

const importsCache = new Map<string, string[]>();

/** The relative module specifiers a file imports at run time (`import type` and `export type … from` left out). */
export function runtimeImports(fileName: string, text: string): string[] {
  if (fileName.endsWith('.json')) return [];
  const key = `${fileName}\0${text}`;
  const cached = importsCache.get(key);
  if (cached) return cached;
  const found = parseImports(fileName, text);
  importsCache.set(key, found);
  return found;
}

function parseImports(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false);
  const specifiers: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly || (!clause.name && clause.namedBindings !== undefined && ts.isNamedImports(clause.namedBindings) && clause.namedBindings.elements.length > 0 && clause.namedBindings.elements.every((e) => e.isTypeOnly)));
      if (!typeOnly) specifiers.push(node.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      if (!node.isTypeOnly) specifiers.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.arguments.length === 1 && ts.isStringLiteral(node.arguments[0])) {
      const callee = node.expression;
      if (callee.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(callee) && callee.text === 'require')) specifiers.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return specifiers.filter((s) => s.startsWith('./') || s.startsWith('../'));
}

/** The file of the tree an import of `specifier` from `fromFile` resolves to, if any. */
function resolveImport(fromFile: string, specifier: string, tree: SourceTree): string | undefined {
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(fromFile), specifier));
  const stem = base.replace(/\.(js|mjs|cjs)$/, '');
  return [base, `${stem}.ts`, `${stem}.tsx`, `${stem}.mts`, `${stem}.cts`, `${base}.ts`, `${base}/index.ts`].find((candidate) => tree.has(candidate));
}

/** Every file under workflows/ and every file they import, transitively, in the tree. */
export function workflowReachable(tree: SourceTree): Set<string> {
  const reached = new Set<string>();
  let frontier = [...tree.files()].filter((file) => file.startsWith(WORKFLOWS_DIR));
  while (frontier.length > 0) {
    for (const file of frontier) reached.add(file);
    const texts = tree.read(frontier);
    const next = new Set<string>();
    for (const file of frontier) {
      for (const specifier of runtimeImports(file, texts.get(file)!)) {
        const target = resolveImport(file, specifier, tree);
        if (target && !reached.has(target)) next.add(target);
      }
    }
    frontier = [...next];
  }
  return reached;
}

/** The tokens of the JavaScript a file compiles to: no comments, no types, no layout, no trailing commas. */
export function runtimeTokens(fileName: string, text: string): string[] {
  if (fileName.endsWith('.json')) {
    try {
      return [JSON.stringify(JSON.parse(text))];
    } catch {
      return [text];
    }
  }
  const js = ts.transpileModule(text, { fileName, compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, removeComments: true, isolatedModules: true } }).outputText;
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, true, ts.LanguageVariant.Standard, js);
  const tokens: string[] = [];
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) tokens.push(scanner.getTokenText());
  return tokens.filter((token, i) => !(token === ',' && [')', ']', '}'].includes(tokens[i + 1])));
}

/** Whether two versions of a file (undefined: absent) run the same code. */
export function sameRuntimeCode(fileName: string, before: string | undefined, after: string | undefined): boolean {
  if (before === undefined || after === undefined) {
    const present = before ?? after;
    return present !== undefined && runtimeTokens(fileName, present).length === 0;
  }
  const a = runtimeTokens(fileName, before);
  const b = runtimeTokens(fileName, after);
  return a.length === b.length && a.every((token, i) => token === b[i]);
}

/** The entries of `PATCH_IDS` in workflows/patches.ts (the constants' names, as written). */
export function patchIdEntries(text: string | undefined): Set<string> {
  const match = text ? /PATCH_IDS[^=]*=\s*\[([\s\S]*?)\]/.exec(text) : null;
  if (!match) return new Set();
  const body = match[1].replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
  return new Set(
    body
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean),
  );
}
