/**
 * One Node story, told once in each place that states it: Lambda runs Node 22, `.nvmrc` picks it
 * for a developer, `engines` admits 22.13 and later, the lockfile carries Node 22's own binary
 * from the npm registry (one optional platform package per system), which every npm script runs
 * (npm puts `node_modules/.bin` first on a script's PATH), and the README says so.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { BUNDLE_TARGET } from '../../infra/bundling.ts';

const read = (file: string) => readFile(file, 'utf8');

/** npm's own range semantics (semver, a devDependency; no @types/semver in the tree, hence the local type). */
const semver = createRequire(import.meta.url)('semver') as {
  satisfies(version: string, range: string): boolean;
  minVersion(range: string): { version: string } | null;
};

interface LockEntry {
  version?: string;
  os?: string | string[];
  cpu?: string | string[];
  bin?: Record<string, string>;
  engines?: { node?: string } | string[];
}
const lockPackages = async () =>
  (JSON.parse(await read('package-lock.json')) as { packages: Record<string, LockEntry> }).packages;

/** The locked packages that put a `node` binary in `node_modules/.bin`, by path. */
const nodeBinaries = (packages: Record<string, LockEntry>) =>
  Object.entries(packages).filter(
    ([path, entry]) => path.split('node_modules/').length === 2 && entry.bin?.node !== undefined,
  );

/** Whether a lock entry's `os`/`cpu` field admits `value` (absent: every value). */
const admits = (field: string | string[] | undefined, value: string) =>
  field === undefined || [field].flat().includes(value);

describe('the Node versions the project states', () => {
  it('agree: Lambda, .nvmrc and the bundles on 22, engines from 22.13, the README saying so', async () => {
    const engines = (JSON.parse(await read('package.json')) as { engines: { node: string } }).engines.node;
    const nvmrc = (await read('.nvmrc').catch(() => '')).trim();
    const functionSource = await read('infra/pbs-function.ts');
    const readme = await read('README.md');

    expect({
      engines,
      nvmrc,
      bundleTarget: BUNDLE_TARGET,
      lambdaRuntime: /lambda\.Runtime\.(NODEJS_\d+_X)/.exec(functionSource)?.[1],
      readmeStates: readme.includes('**Node.** The project runs on Node 22'),
    }).toEqual({
      engines: '>=22.13',
      nvmrc: '22',
      bundleTarget: 'node22',
      lambdaRuntime: 'NODEJS_22_X',
      readmeStates: true,
    });
  });

  it("locks one Node 22 binary, the same version for every platform, and no package's install script to fetch it", async () => {
    const binaries = nodeBinaries(await lockPackages());
    const versions = new Set(binaries.map(([, entry]) => entry.version));

    expect(binaries.length).toBeGreaterThan(1);
    expect([...versions]).toHaveLength(1);
    expect(semver.satisfies([...versions][0] ?? '', '>=22.13 <23')).toBe(true);
    // The `node` package itself would fetch the binary in its preinstall, which npm may not run.
    expect(binaries.map(([path]) => path)).not.toContain('node_modules/node');
  });

  it("runs the tests on the locked Node binary of this platform, not the machine's own Node", async () => {
    const ours = nodeBinaries(await lockPackages()).find(
      ([, entry]) => admits(entry.os, process.platform) && admits(entry.cpu, process.arch),
    );

    expect(ours).toBeDefined();
    expect(process.version).toBe(`v${ours?.[1].version}`);
    expect(process.execPath).toContain(ours?.[0]);
  });
});

describe('the locked dependencies', () => {
  it("all run on the project's minimum Node, so that npm ci there warns about no engine", async () => {
    const engines = (JSON.parse(await read('package.json')) as { engines: { node: string } }).engines.node;
    const minimum = semver.minVersion(engines)?.version;
    const excluding = Object.entries(await lockPackages()).flatMap(([path, entry]) => {
      const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      return range === undefined || semver.satisfies(minimum ?? '', range) ? [] : [`${path} (node ${range})`];
    });
    expect(minimum).toBe('22.13.0');
    expect(excluding).toEqual([]);
  });
});
