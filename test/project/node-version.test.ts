/**
 * One Node story, told once in each place that states it: Lambda runs Node 22, `.nvmrc` picks it
 * for a developer, `engines` admits Node 20.19 and later, and the README says that Node 20 is past
 * its end of life and 22 recommended.
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

describe('the Node versions the project states', () => {
  it('agree: Lambda and .nvmrc on 22, engines from 20.19, the README saying both', async () => {
    const engines = (JSON.parse(await read('package.json')) as { engines: { node: string } }).engines.node;
    const nvmrc = (await read('.nvmrc').catch(() => '')).trim();
    const functionSource = await read('infra/pbs-function.ts');
    const readme = await read('README.md');

    expect({
      engines,
      nvmrc,
      bundleTarget: BUNDLE_TARGET,
      lambdaRuntime: /lambda\.Runtime\.(NODEJS_\d+_X)/.exec(functionSource)?.[1],
      readmeRecommends: readme.includes('Node 22 is recommended'),
      readmeEndOfLife: /Node 20 is past its end of life/.test(readme),
      readmeFloor: readme.includes('Node 20.19 or later'),
    }).toEqual({
      engines: '>=20.19',
      nvmrc: '22',
      bundleTarget: 'node22',
      lambdaRuntime: 'NODEJS_22_X',
      readmeRecommends: true,
      readmeEndOfLife: true,
      readmeFloor: true,
    });
  });
});

describe('the locked dependencies', () => {
  it("all run on the project's minimum Node, so that npm ci there warns about no engine", async () => {
    const engines = (JSON.parse(await read('package.json')) as { engines: { node: string } }).engines.node;
    const minimum = semver.minVersion(engines)?.version;
    const lock = JSON.parse(await read('package-lock.json')) as {
      packages: Record<string, { engines?: { node?: string } | string[] }>;
    };
    const excluding = Object.entries(lock.packages).flatMap(([path, entry]) => {
      const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      return range === undefined || semver.satisfies(minimum ?? '', range) ? [] : [`${path} (node ${range})`];
    });
    expect(minimum).toBe('20.19.0');
    expect(excluding).toEqual([]);
  });
});
