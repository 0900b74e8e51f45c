import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STACK_ID } from '../../infra/pbs-app.ts';
import { PROJECT_ROOT } from '../../infra/pbs-function.ts';

interface Resource {
  Type: string;
  Properties: Record<string, unknown>;
  Metadata?: Record<string, unknown>;
}

let outDir: string;
let result: { status: number | null; output: string };
let resources: Record<string, Resource>;

// The real app as an operator runs it: the pinned CLI, offline, esbuild bundling on this machine.
beforeAll(() => {
  outDir = mkdtempSync(join(tmpdir(), 'pbs-cdk-out-'));
  const run = spawnSync('npx', ['--no-install', 'cdk', 'synth', '--quiet', '--no-notices', '-o', outDir], {
    cwd: PROJECT_ROOT,
    encoding: 'utf8',
    timeout: 110_000,
    env: { ...process.env, CDK_DISABLE_VERSION_CHECK: '1' },
  });
  result = { status: run.status, output: `${run.stdout}\n${run.stderr}` };
  const templateFile = join(outDir, `${STACK_ID}.template.json`);
  resources = existsSync(templateFile)
    ? (JSON.parse(readFileSync(templateFile, 'utf8')) as { Resources: Record<string, Resource> }).Resources
    : {};
}, 120_000);

afterAll(() => {
  rmSync(outDir, { recursive: true, force: true });
});

const functions = () =>
  Object.values(resources).filter((resource) => resource.Type === 'AWS::Lambda::Function');
const assetDirs = () => functions().map((fn) => join(outDir, String(fn.Metadata?.['aws:asset:path'])));

describe('cdk synth of the app', () => {
  it('exits 0', () => {
    expect(result.status, result.output).toBe(0);
  });

  it('reports no cdk-nag finding', () => {
    expect(result.output).not.toMatch(/AwsSolutions-/);
  });

  it('returns a template with the six functions deployed from bundled assets', () => {
    expect(functions()).toHaveLength(6);
    for (const fn of functions()) {
      expect(fn.Properties).toMatchObject({
        Handler: 'index.handler',
        Code: { S3Bucket: expect.anything() },
      });
    }
  });

  it("copies the portal's static files beside the HTTP API bundle only", () => {
    const withStatic = assetDirs().filter((dir) => existsSync(join(dir, 'static', 'portal.js')));
    expect(withStatic).toHaveLength(1);
    for (const name of ['portal.js', 'portal.css']) {
      expect(readFileSync(join(withStatic[0] ?? '', 'static', name), 'utf8')).toBe(
        readFileSync(join(PROJECT_ROOT, 'lib/portal/static', name), 'utf8'),
      );
    }
  });

  it('bundles each function as an ES module with its source map', () => {
    for (const dir of assetDirs()) {
      expect(existsSync(join(dir, 'index.mjs')), dir).toBe(true);
      expect(existsSync(join(dir, 'index.mjs.map')), dir).toBe(true);
    }
  });

  it('keeps the error class names in every bundle, as the state machine retriers match them', () => {
    for (const dir of assetDirs()) {
      const code = readFileSync(join(dir, 'index.mjs'), 'utf8');
      for (const name of ['ValidationError', 'JobNotFoundError', 'ProfileBusyError']) {
        expect(code, `${dir}: ${name}`).toContain(`"${name}"`);
      }
    }
  });

  it('returns bundles that load and export a handler function', () => {
    const script = `
      const dirs = JSON.parse(process.argv[1]);
      const kinds = await Promise.all(dirs.map(async (dir) => typeof (await import(dir + '/index.mjs')).handler));
      console.log(JSON.stringify(kinds));`;
    const run = spawnSync(
      process.execPath,
      ['--input-type=module', '-e', script, JSON.stringify(assetDirs())],
      {
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '[]')).toEqual(Array(6).fill('function'));
  });
});
