import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

function sources(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => path.join(dir, f));
}

function imports(file: string): { spec: string; typeOnly: boolean }[] {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  return [...text.matchAll(/^(import|export)\s+(type\s+)?[^'"]*from\s+['"]([^'"]+)['"]/gm)].map((m) => ({ spec: m[3], typeOnly: !!m[2] }));
}

/**
 * The dependency rules of docs/architecture (a lint that cannot be switched off): workflow code is
 * deterministic and bundleable, the domain is pure, and nothing but main.ts reaches into http/.
 */
describe('architecture', () => {
  test.each(sources('workflows'))('%s imports only the workflow SDK, the domain and type-only activities', (file) => {
    for (const { spec, typeOnly } of imports(file)) {
      const allowed =
        spec === '@temporalio/workflow' ||
        // Its error types and payload helpers: deterministic and bundleable, as the domain may use them.
        spec === '@temporalio/common' ||
        spec.startsWith('./') ||
        spec.startsWith('../src/domain/') ||
        (typeOnly && (spec.startsWith('../activities/') || spec.startsWith('../src/')));
      expect({ file, spec, allowed }).toEqual({ file, spec, allowed: true });
    }
  });

  test.each(sources('src/domain'))('%s is pure (no I/O, no Node built-ins, no infrastructure)', (file) => {
    for (const { spec } of imports(file)) {
      const allowed = spec.startsWith('./') || spec === '@temporalio/common';
      expect({ file, spec, allowed }).toEqual({ file, spec, allowed: true });
    }
    const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
    expect(text).not.toMatch(/Math\.random|Date\.now|new Date\(\)/);
  });

  test('only src/main.ts imports the http layer; the web port (src/web/) may use its request contract alone (schemas and validate); the topology proxy its listener limits alone', () => {
    const contract = (spec: string) => /\/http\/(schemas\/[\w-]+|validate)$/.test(spec);
    // npm run topology's proxy serves the API and web ports in front of the API processes, with the same listener limits (src/http/server-limits.ts).
    const listenerLimits = (f: string, spec: string) => f === 'src/topology/proxy.ts' && /\/http\/server-limits$/.test(spec);
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
