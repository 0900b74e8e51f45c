/**
 * `npm run bench:profile -- DIR [--top 25]`
 *
 * Sums the V8 CPU profiles that `npm run bench -- --cpu-prof DIR` wrote, one table per task: the
 * main thread's time by source module (`lib/export/report/normalize.ts`, an npm package, a Node
 * built-in, the garbage collector), largest first. The benchmark's children run as esbuild
 * bundles, which mark where each module's code starts with a `// lib/…` comment line: a sampled
 * line of the bundle belongs to the module of the last such mark above it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples: number[];
  timeDeltas: number[];
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string' } },
});
const dir = positionals[0];
if (dir === undefined) {
  console.error(
    'usage: npm run bench:profile -- DIR [--top 25]   (DIR: the --cpu-prof folder of npm run bench)',
  );
  process.exit(2);
}
const top = Number(values.top ?? 25);

/** The module of each line of a bundle, from esbuild's `// path` marks. */
function moduleOfLines(bundleFile: string): string[] {
  const modules: string[] = [];
  let current = '(bundle)';
  for (const [index, line] of readFileSync(bundleFile, 'utf8').split('\n').entries()) {
    const mark = /^\/\/ ((?:lib|bench|infra|functions)\/\S+\.ts)$/.exec(line);
    if (mark?.[1] !== undefined) current = mark[1];
    modules[index] = current;
  }
  return modules;
}

const bundles = new Map<string, string[]>();
/** Where a sampled function's code comes from: a project module, an npm package, Node, or V8. */
function sourceOf(frame: CpuProfile['nodes'][number]['callFrame']): string {
  const { url, functionName, lineNumber } = frame;
  if (url.endsWith('.mjs') && url.includes('/.bench/')) {
    const path = url.startsWith('file:') ? fileURLToPath(url) : url;
    if (!bundles.has(path)) bundles.set(path, moduleOfLines(path));
    return bundles.get(path)?.[lineNumber] ?? '(bundle)';
  }
  const npm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (npm?.[1] !== undefined) return `npm: ${npm[1]}`;
  if (url.startsWith('node:')) return url.replace(/^node:internal\//, 'node: ');
  return functionName === '' ? '(native)' : functionName;
}

for (const file of readdirSync(dir)
  .filter((name) => name.endsWith('.cpuprofile'))
  .sort()) {
  const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
  const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const bySource = new Map<string, number>();
  let total = 0;
  for (const [index, id] of profile.samples.entries()) {
    const micros = profile.timeDeltas[index] ?? 0;
    const frame = frames.get(id);
    if (frame === undefined) continue;
    const source = sourceOf(frame);
    bySource.set(source, (bySource.get(source) ?? 0) + micros);
    total += micros;
  }
  console.log(`\n${file}: ${(total / 1e6).toFixed(2)} s of main-thread samples`);
  for (const [source, micros] of [...bySource].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    const ms = Math.round(micros / 1000);
    console.log(
      `${String(ms).padStart(7)} ms ${((100 * micros) / total).toFixed(1).padStart(5)} %  ${source}`,
    );
  }
}
