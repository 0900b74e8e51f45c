import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleAliases, functionBuildOptions } from '../../infra/bundling.ts';
import { PROJECT_ROOT } from '../../infra/pbs-function.ts';
import { FUNCTIONS } from '../../infra/stack.ts';
import ArchiverStandIn from '../../infra/stand-ins/archiver.ts';
import PdfStandIn from '../../infra/stand-ins/pdfkit.ts';
import * as bundled from '../../lib/aws-sdk/bundled.ts';
import * as lazy from '../../lib/aws-sdk/lazy.ts';

describe('bundleAliases', () => {
  it('gives archiver to the finish function and the HTTP API alone, a stand-in to every other; pdfkit to none', () => {
    const standIns = Object.fromEntries(
      Object.values(FUNCTIONS).map((spec) => [spec.entry, bundleAliases(spec.entry, PROJECT_ROOT)]),
    );
    const archiver = join(PROJECT_ROOT, 'infra/stand-ins/archiver.ts');
    const pdfkit = join(PROJECT_ROOT, 'infra/stand-ins/pdfkit.ts');

    expect(standIns).toEqual({
      'functions/http-api.ts': { pdfkit },
      'functions/export-plan.ts': { archiver, pdfkit },
      'functions/export-fetch-shard.ts': { archiver, pdfkit },
      'functions/export-finish.ts': { pdfkit },
      'functions/export-fail.ts': { archiver, pdfkit },
      'functions/monthly-start.ts': { archiver, pdfkit },
      'functions/rates-fetch.ts': { archiver, pdfkit },
    });
  });

  it("has a stand-in that fails naming the reason if a function's code reaches it", () => {
    const reach = () => (ArchiverStandIn as unknown as (format: string) => unknown)('zip');

    expect(reach).toThrow(/archiver is bundled only into the finish function and the HTTP API/);
    expect(() => new (PdfStandIn as unknown as new () => unknown)()).toThrow(
      /tax pack is written by the CLI and serve only/,
    );
  });
});

describe("a function's bundle (functionBuildOptions, as the bench builds it)", () => {
  let dir: string;
  let code: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pbs-bundling-test-'));
    const outfile = join(dir, 'export-plan.mjs');
    await build(functionBuildOptions('functions/export-plan.ts', PROJECT_ROOT, outfile));
    code = await readFile(outfile, 'utf8');
  });
  afterAll(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('carries the AWS SDK commands the project sends and none it never sends', () => {
    // Class names survive minification (keepNames), so each bundled command is named in the text.
    // The last two are sent nowhere in the project: bundled only with a whole package.
    const commands = [
      'PutObjectCommand',
      'GetObjectCommand',
      'PutBucketLifecycleConfigurationCommand',
      'ListStateMachinesCommand',
    ];

    expect(commands.filter((name) => code.includes(name))).toEqual(['PutObjectCommand', 'GetObjectCommand']);
  });
});

describe('the AWS SDK loaders (lib/aws-sdk.ts)', () => {
  it('give the same exports whether bundled (static imports) or lazy (import())', async () => {
    const loaders = [
      ['loadS3Sdk', bundled.loadS3Sdk, lazy.loadS3Sdk],
      ['loadS3Upload', bundled.loadS3Upload, lazy.loadS3Upload],
      ['loadS3Presigner', bundled.loadS3Presigner, lazy.loadS3Presigner],
      ['loadSfnSdk', bundled.loadSfnSdk, lazy.loadSfnSdk],
    ] as const;
    // Every loader is in the list above, in each module.
    expect(Object.keys(bundled).sort()).toEqual(loaders.map(([name]) => name).sort());
    expect(Object.keys(lazy).sort()).toEqual(Object.keys(bundled).sort());

    for (const [name, loadBundled, loadLazy] of loaders) {
      const [fromBundle, loaded] = (await Promise.all([loadBundled(), loadLazy()])) as Record<
        string,
        unknown
      >[];
      const exports = Object.keys(fromBundle ?? {});
      expect(exports.length, name).toBeGreaterThan(0);
      for (const exported of exports) {
        expect(fromBundle?.[exported], `${name}: ${exported}`).toBe(loaded?.[exported]);
        expect(fromBundle?.[exported], `${name}: ${exported}`).toBeDefined();
      }
    }
  });
});
