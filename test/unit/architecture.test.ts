import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.resolve(__dirname, '../..');

function sources(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => path.join(dir, f));
}

interface Import {
  spec: string;
  /** Erased at compile time: `import type`, all-`type` named imports, `export type … from`, `typeof import('…')`. */
  typeOnly: boolean;
}

/**
 * Every module a file's text imports, found by a real parse (the TypeScript compiler's), wherever it
 * stands: `import … from`, `export … from`, side-effect `import './x'`, `import x = require('./x')`,
 * dynamic `import('./x')` and `require('./x')`. A dynamic import or require of a computed name is
 * reported as `<computed: …>`, which no rule below allows.
 */
function scanImports(fileName: string, text: string): Import[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false);
  const found: Import[] = [];
  const add = (specifier: ts.Node, typeOnly: boolean) =>
    found.push(ts.isStringLiteralLike(specifier) ? { spec: specifier.text, typeOnly } : { spec: `<computed: ${specifier.getText(source)}>`, typeOnly: false });
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      const bindings = clause?.namedBindings;
      const allTypes = !!clause && !clause.name && !!bindings && ts.isNamedImports(bindings) && bindings.elements.length > 0 && bindings.elements.every((e) => e.isTypeOnly);
      add(node.moduleSpecifier, !!clause && (clause.isTypeOnly || allTypes));
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier) {
      add(node.moduleSpecifier, node.isTypeOnly);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(node.moduleReference.expression, node.isTypeOnly);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node.argument.literal, true);
    } else if (ts.isCallExpression(node) && node.arguments[0] && (node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && node.expression.text === 'require'))) {
      add(node.arguments[0], false);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function imports(file: string): Import[] {
  return scanImports(file, fs.readFileSync(path.join(ROOT, file), 'utf8'));
}

/** Workflow code: the workflow SDK, the domain, itself, and activities or other src/ for their types only. */
const allowedInWorkflows = ({ spec, typeOnly }: Import) =>
  spec === '@temporalio/workflow' ||
  // Its error types and payload helpers: deterministic and bundleable, as the domain may use them.
  spec === '@temporalio/common' ||
  spec.startsWith('./') ||
  spec.startsWith('../src/domain/') ||
  (typeOnly && (spec.startsWith('../activities/') || spec.startsWith('../src/')));

/** The domain: itself and @temporalio/common only. */
const allowedInDomain = ({ spec }: Import) => spec.startsWith('./') || spec === '@temporalio/common';

describe('the import scanner', () => {
  const scan = (text: string) => scanImports('fixture.ts', text);

  test('static imports and re-exports, the type-only ones marked', () => {
    const text = [
      "import { a } from './a';",
      "import type { B } from '../b';",
      "import { type C, type D } from './cd';",
      "import { type E, f } from './ef';",
      "import * as g from 'g';",
      "import h from 'h';",
      "export { i } from './i';",
      "export type { J } from './j';",
      "export * from './k';",
      'export const local = 1;',
    ].join('\n');
    expect(scan(text)).toEqual([
      { spec: './a', typeOnly: false },
      { spec: '../b', typeOnly: true },
      { spec: './cd', typeOnly: true },
      { spec: './ef', typeOnly: false },
      { spec: 'g', typeOnly: false },
      { spec: 'h', typeOnly: false },
      { spec: './i', typeOnly: false },
      { spec: './j', typeOnly: true },
      { spec: './k', typeOnly: false },
    ]);
  });

  test("a side-effect import (`import './x'`) is caught", () => {
    expect(scan("import './polyfill';\nimport 'node:fs';\n")).toEqual([
      { spec: './polyfill', typeOnly: false },
      { spec: 'node:fs', typeOnly: false },
    ]);
  });

  test("a dynamic import (`await import('./x')`) is caught, inside a function too; one of a computed name is reported as such", () => {
    const text = "export async function load(name: string) {\n  const orm = await import('../src/persistence/orm');\n  return [orm, await import(name)];\n}\n";
    expect(scan(text)).toEqual([
      { spec: '../src/persistence/orm', typeOnly: false },
      { spec: '<computed: name>', typeOnly: false },
    ]);
  });

  test("`require('./x')` is caught, and `import x = require('./x')`; `typeof import('./x')` is type-only; another call is no import", () => {
    const text = [
      "const fs = require('node:fs');",
      "function later() { return require('./lazy').value; }",
      "import pg = require('pg');",
      "type Orm = typeof import('./orm');",
      "const notAnImport = other('./x');",
    ].join('\n');
    expect(scan(text)).toEqual([
      { spec: 'node:fs', typeOnly: false },
      { spec: './lazy', typeOnly: false },
      { spec: 'pg', typeOnly: false },
      { spec: './orm', typeOnly: true },
    ]);
  });

  test('each form breaks the rules below: in workflow code, a side-effect import of the http layer, a dynamic import of activities, a require of a Node built-in; in the domain, the same', () => {
    const text = [
      "import '../src/domain/money';",
      "import '../src/http/app';",
      "const activities = await import('../activities/charge');",
      "const crypto = require('node:crypto');",
      "const computed = await import(`../activities/${name}`);",
    ].join('\n');
    expect(scan(text).filter((i) => !allowedInWorkflows(i)).map((i) => i.spec)).toEqual(['../src/http/app', '../activities/charge', 'node:crypto', '<computed: `../activities/${name}`>']);
    expect(scan(text).filter((i) => !allowedInDomain(i)).map((i) => i.spec)).toHaveLength(5);
  });
});

/**
 * The dependency rules of docs/architecture (a lint that cannot be switched off): workflow code is
 * deterministic and bundleable, the domain is pure, and nothing but main.ts reaches into http/.
 */
describe('architecture', () => {
  test.each(sources('workflows'))('%s imports only the workflow SDK, the domain and type-only activities', (file) => {
    for (const i of imports(file)) {
      expect({ file, spec: i.spec, allowed: allowedInWorkflows(i) }).toEqual({ file, spec: i.spec, allowed: true });
    }
  });

  test.each(sources('src/domain'))('%s is pure (no I/O, no Node built-ins, no infrastructure)', (file) => {
    for (const i of imports(file)) {
      expect({ file, spec: i.spec, allowed: allowedInDomain(i) }).toEqual({ file, spec: i.spec, allowed: true });
    }
    const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
    expect(text).not.toMatch(/Math\.random|Date\.now|new Date\(\)/);
  });

  test('only src/main.ts imports the http layer; the web port (src/web/) may use its request contract alone (schemas and validate); the topology proxy its listener limits alone', () => {
    const contract = (spec: string) => /\/http\/(schemas\/[\w-]+|validate)$/.test(spec);
    // npm run topology's proxy serves the API and web ports in front of the API processes, with the same listener limits (src/http/server-limits.ts).
    // Issue 47: the metrics listeners and the codec endpoint have them too.
    const LIMITED_LISTENERS = ['src/topology/proxy.ts', 'src/support/metrics-listener.ts', 'src/runtime/codec-server.ts'];
    const listenerLimits = (f: string, spec: string) => LIMITED_LISTENERS.includes(f) && /\/http\/server-limits$/.test(spec);
    const offenders = [...sources('src'), ...sources('workers'), ...sources('activities'), ...sources('workflows')]
      // The deterministic simulation mounts the API's listeners as main.ts does (src/simulation/listeners.ts).
      .filter((f) => !f.startsWith('src/http/') && f !== 'src/main.ts' && f !== 'src/simulation/listeners.ts')
      .flatMap((f) => imports(f).filter(({ spec }) => /\/http\//.test(spec) && !(f.startsWith('src/web/') && contract(spec)) && !listenerLimits(f, spec)).map(({ spec }) => `${f} → ${spec}`));
    expect(offenders).toEqual([]);
  });

  test.each([...sources('src/http/schemas'), 'src/http/validate.ts', 'src/http/metadata-limits.ts'])('%s (the request contract) stays free of Koa and of the rest of the http layer', (file) => {
    for (const { spec, typeOnly } of imports(file)) {
      const allowed = typeOnly || !/koa|\/(routes|middleware|openapi)\//.test(spec);
      expect({ file, spec, allowed }).toEqual({ file, spec, allowed: true });
    }
  });
});
