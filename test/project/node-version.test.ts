/**
 * One Node story, told once in each place that states it: Lambda runs Node 22, `.nvmrc` picks it
 * for a developer, `engines` admits Node 20.19 and later, and the README says that Node 20 is past
 * its end of life and 22 recommended.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { BUNDLE_TARGET } from '../../infra/bundling.ts';

const read = (file: string) => readFile(file, 'utf8');

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
