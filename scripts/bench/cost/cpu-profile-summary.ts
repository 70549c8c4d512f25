/**
 * npx tsx scripts/bench/cost/cpu-profile-summary.ts FILE.cpuprofile [--from S --to S] [--top 20] [--bundle FILE]
 *
 * Where a V8 CPU profile's time went: self time by package (node_modules/<pkg>, node's own code, or
 * the project's folder: src/persistence, workflows/, activities/, …), the top functions by self time,
 * and the inclusive time of the project's functions. `--from`/`--to`: seconds from the profile's
 * start (a window, e.g. one phase of a whole-run worker profile). `--bundle`: the workflow bundle the
 * worker ran (WORKFLOW_BUNDLE_PATH), so that the workflow threads' frames are split by module (see
 * bundleModules). Markdown on stdout. The bench's cost
 * mode (scripts/bench/cost/cost.ts) calls `summarizeProfile` on the profiles it collects.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const REPO = path.resolve(__dirname, '../../..');
const PROJECT_TOP = new Set(['workflows', 'activities', 'workers', 'scripts']);
const V8_PSEUDO = new Set(['(idle)', '(program)', '(garbage collector)', '(root)']);

/** The package a frame belongs to: node_modules/<pkg>, `node:` core, a project folder, or a V8 pseudo-frame. */
export function packageOf(frame: CallFrame): string {
  if (V8_PSEUDO.has(frame.functionName)) return frame.functionName;
  const url = frame.url.replace(/^file:\/\//, '');
  if (url === '') return '(native, no script)';
  if (url.startsWith('node:')) return 'node: (core)';
  if (url.startsWith('wasm:')) return '(wasm)';
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const parts = url.slice(nm + '/node_modules/'.length).split('/');
    return `node_modules/${parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]}`;
  }
  // Workflow code runs from the SDK's webpack bundle (one per worker thread), evaluated in a vm context.
  if (/workflow-bundle/.test(url)) return '(workflow bundle)';
  if (url.startsWith('evalmachine')) return '(workflow vm context glue)';
  if (!path.isAbsolute(url)) return `other: ${url}`;
  const rel = path.relative(REPO, url);
  if (!rel.startsWith('..')) {
    const parts = rel.split('/');
    if (parts[0] === 'src' && parts.length > 2) return `src/${parts[1]}`;
    if (parts[0] === 'scripts' && parts.length > 2) return `scripts/${parts[1]}`;
    if (parts.length > 1) return `${parts[0]}/`;
    return rel;
  }
  return `other: ${path.basename(url)}`;
}

/**
 * The modules of a workflow bundle by line: webpack starts each with a line of a slash, three stars,
 * a slash and the module's quoted path, relative to the repository where it was bundled. V8 profiles the bundle as one script
 * (`workflow-bundle-<hash>.js`); with this map each frame is given its module's path instead, so the
 * workflow threads' time is split by package as the main thread's is.
 */
export function bundleModules(code: string): Array<{ line: number; file: string }> {
  const out: Array<{ line: number; file: string }> = [];
  code.split('\n').forEach((text, line) => {
    const m = /^\/\*{3}\/ "(.+)"$/.exec(text);
    if (m) out.push({ line, file: path.resolve(REPO, m[1]) });
    // webpack's own runtime (its lines start with a slash, six stars and a slash), after the modules.
    else if (text.startsWith('/******/') && out.length > 0 && out[out.length - 1].file !== '') out.push({ line, file: '' });
  });
  return out;
}

/** `profile` with every frame of the workflow bundle moved to its module's file (line unknown: -1). */
export function mapBundleFrames(profile: CpuProfile, modules: Array<{ line: number; file: string }>): CpuProfile {
  if (modules.length === 0) return profile;
  const moduleAt = (line: number) => {
    let lo = 0;
    let hi = modules.length - 1;
    if (line < modules[0].line) return undefined;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (modules[mid].line <= line) lo = mid;
      else hi = mid - 1;
    }
    return modules[lo].file;
  };
  return {
    ...profile,
    nodes: profile.nodes.map((n) => {
      if (!/workflow-bundle/.test(n.callFrame.url)) return n;
      const file = moduleAt(n.callFrame.lineNumber);
      if (file === undefined) return n;
      return { ...n, callFrame: { ...n.callFrame, url: file === '' ? 'workflow-bundle: webpack runtime' : `file://${file}`, lineNumber: -1 } };
    }),
  };
}

const isProject = (pkg: string) => pkg.startsWith('src/') || PROJECT_TOP.has(pkg.replace(/\/$/, '')) || pkg.startsWith('scripts/');
const frameName = (f: CallFrame) => `${f.functionName || '(anonymous)'} ${f.url ? `${path.basename(f.url)}${f.lineNumber >= 0 ? `:${f.lineNumber + 1}` : ' (bundled)'}` : ''}`.trim();

export interface ProfileSummary {
  file: string;
  windowS: [number, number];
  /** Sampled time in the window, and of it not idle. */
  totalMs: number;
  busyMs: number;
  byPackage: Array<[string, number]>;
  topSelf: Array<[string, string, number]>;
  projectInclusive: Array<[string, number]>;
}

/** Self and inclusive times of `profile` between `fromS` and `toS` seconds after its start. */
export function summarizeProfile(profile: CpuProfile, file: string, fromS = 0, toS = Infinity, top = 20): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<number, number>();
  let t = profile.startTime;
  const from = profile.startTime + fromS * 1e6;
  const to = profile.startTime + toS * 1e6;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i] ?? 0;
    if (t < from || t > to) continue;
    // The time until the next sample is this sample's (the last one gets none).
    const dt = profile.timeDeltas[i + 1] ?? 0;
    self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + dt);
  }
  const pkgMs = new Map<string, number>();
  const fnMs = new Map<string, { pkg: string; us: number }>();
  const inclusive = new Map<string, number>();
  let totalUs = 0;
  let idleUs = 0;
  for (const [id, us] of self) {
    const node = byId.get(id)!;
    const pkg = packageOf(node.callFrame);
    totalUs += us;
    if (node.callFrame.functionName === '(idle)') idleUs += us;
    pkgMs.set(pkg, (pkgMs.get(pkg) ?? 0) + us);
    const name = frameName(node.callFrame);
    const fn = fnMs.get(name) ?? { pkg, us: 0 };
    fn.us += us;
    fnMs.set(name, fn);
    // Inclusive: each project function on this stack once (recursion not counted twice).
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const f = byId.get(cur)!.callFrame;
      if (!isProject(packageOf(f))) continue;
      const key = frameName(f);
      if (seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + us);
    }
  }
  const ms = (us: number) => us / 1000;
  return {
    file,
    windowS: [fromS, Math.min(toS, (profile.endTime - profile.startTime) / 1e6)],
    totalMs: ms(totalUs),
    busyMs: ms(totalUs - idleUs),
    byPackage: [...pkgMs].map(([k, v]): [string, number] => [k, ms(v)]).sort((a, b) => b[1] - a[1]),
    topSelf: [...fnMs]
      .filter(([, v]) => v.pkg !== '(idle)')
      .map(([k, v]): [string, string, number] => [k, v.pkg, ms(v.us)])
      .sort((a, b) => b[2] - a[2])
      .slice(0, top),
    projectInclusive: [...inclusive].map(([k, v]): [string, number] => [k, ms(v)]).sort((a, b) => b[1] - a[1]).slice(0, top),
  };
}

const f1 = (n: number) => n.toFixed(1);
const pct = (n: number, of: number) => (of > 0 ? `${((100 * n) / of).toFixed(1)} %` : 'n/a');
const cell = (s: string) => s.replace(/\|/g, '\\|');

/**
 * Markdown of one summary. V8 samples on the wall clock: a thread the OS has descheduled (a busy
 * machine) is still "in" its function, so a profile's milliseconds are not CPU. `estimate` turns
 * each share into CPU: `factor` (CPU-ms per item ÷ this profile's not-idle ms) times the ms, in an
 * extra column "est. CPU-ms per <label>".
 */
export function renderProfileSummary(s: ProfileSummary, estimate?: { factor: number; label: string }): string[] {
  const per = (v: number) => (estimate ? ` | ${Number.isFinite(estimate.factor) ? (v * estimate.factor).toFixed(3) : 'n/a'}` : '');
  const perHead = estimate ? ` | est. CPU-ms per ${estimate.label}` : '';
  const perAlign = estimate ? '|--:' : '';
  return [
    `Profile \`${path.basename(s.file)}\`, window ${f1(s.windowS[0])}–${f1(s.windowS[1])} s: ${f1(s.totalMs)} ms sampled, ${f1(s.busyMs)} ms not idle (wall-clock samples: on a busy machine more than the CPU used).`,
    '',
    `| self time by package | ms | share of not idle${perHead} |`,
    `|:--|--:|--:${perAlign}|`,
    ...s.byPackage.filter(([k]) => k !== '(idle)').slice(0, 25).map(([k, v]) => `| ${cell(k)} | ${f1(v)} | ${pct(v, s.busyMs)}${per(v)} |`),
    '',
    `| top functions by self time | package | ms | share${perHead} |`,
    `|:--|:--|--:|--:${perAlign}|`,
    ...s.topSelf.map(([k, p, v]) => `| ${cell(k)} | ${cell(p)} | ${f1(v)} | ${pct(v, s.busyMs)}${per(v)} |`),
    '',
    `| project functions, inclusive time | ms | share${perHead} |`,
    `|:--|--:|--:${perAlign}|`,
    ...(s.projectInclusive.length ? s.projectInclusive.map(([k, v]) => `| ${cell(k)} | ${f1(v)} | ${pct(v, s.busyMs)}${per(v)} |`) : ['| (no project function sampled) | | |']),
    '',
  ];
}

export function readProfile(file: string): CpuProfile {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
}

if (require.main === module) {
  const { values, positionals } = parseArgs({ options: { from: { type: 'string' }, to: { type: 'string' }, top: { type: 'string' }, bundle: { type: 'string' } }, allowPositionals: true });
  if (positionals.length === 0) {
    console.error('usage: npx tsx scripts/bench/cost/cpu-profile-summary.ts FILE.cpuprofile [FILE …] [--from S --to S] [--top 20] [--bundle workflow-bundle.js]');
    process.exit(2);
  }
  const modules = values.bundle ? bundleModules(fs.readFileSync(values.bundle, 'utf8')) : [];
  for (const file of positionals) {
    const summary = summarizeProfile(mapBundleFrames(readProfile(file), modules), file, Number(values.from ?? 0), values.to === undefined ? Infinity : Number(values.to), Number(values.top ?? 20));
    console.log([`### ${file}`, '', ...renderProfileSummary(summary)].join('\n'));
  }
}
