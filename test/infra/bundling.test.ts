import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleFileCommands, functionBuildOptions } from '../../infra/bundling.ts';
import { PROJECT_ROOT } from '../../infra/pbs-function.ts';
import { FUNCTIONS } from '../../infra/stack.ts';
import * as bundled from '../../lib/aws-sdk/bundled.ts';
import * as lazy from '../../lib/aws-sdk/lazy.ts';

/** Strings found only in each renderer library's own code (kept by `keepNames` and as literals). */
const MARKERS = {
  // archiver, which zips a set's archive in the HTTP API (its error class, kept by keepNames).
  archiver: 'ArchiverError',
  // The workbook's zip writer (its class, kept by keepNames).
  'zip writer': 'ZipWriter',
  // pdfkit: the class the tax pack draws on, and the header it writes.
  pdfkit: '"PDFDocument"',
} as const;

/** The libraries of `MARKERS` whose code `code` carries. */
const renderersIn = (code: string) =>
  Object.entries(MARKERS)
    .filter(([, marker]) => code.includes(marker))
    .map(([name]) => name);

describe("each export task's bundle (functionBuildOptions, as CDK and the bench build it)", () => {
  let dir: string;
  const code: Record<string, string> = {};
  const tasks = ['export-plan', 'export-fetch-shard', 'export-finish', 'export-fail'] as const;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pbs-bundling-test-'));
    for (const task of tasks) {
      const outfile = join(dir, `${task}.mjs`);
      await build(functionBuildOptions(`functions/${task}.ts`, PROJECT_ROOT, outfile));
      code[task] = await readFile(outfile, 'utf8');
    }
  });
  afterAll(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it("carries the renderer's zip writer and pdfkit in the finish alone, the one task that renders, and archiver in none", () => {
    expect(Object.fromEntries(tasks.map((task) => [task, renderersIn(code[task] ?? '')]))).toEqual({
      'export-plan': [],
      'export-fetch-shard': [],
      'export-finish': ['zip writer', 'pdfkit'],
      'export-fail': [],
    });
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

    expect(commands.filter((name) => code['export-plan']?.includes(name))).toEqual([
      'PutObjectCommand',
      'GetObjectCommand',
    ]);
  });
});

describe('bundleFileCommands (the bundling hook)', () => {
  let dir: string;
  afterAll(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it("copies the tax pack's two DejaVu faces and their licence beside the finish's bundle, and nothing beside the others'", async () => {
    dir = await mkdtemp(join(tmpdir(), 'pbs-bundle-files-'));
    const copied: Record<string, string[]> = {};
    for (const { entry } of Object.values(FUNCTIONS)) {
      const outputDir = join(dir, basename(entry, '.ts'));
      await mkdir(outputDir, { recursive: true });
      for (const command of bundleFileCommands(entry, PROJECT_ROOT, outputDir)) await sh(command);
      copied[basename(entry, '.ts')] = await filesUnder(outputDir);
    }

    expect(copied).toEqual({
      'http-api': [],
      'export-plan': [],
      'export-fetch-shard': [],
      'export-finish': ['fonts/DejaVuSans-Bold.ttf', 'fonts/DejaVuSans.ttf', 'fonts/LICENSE'],
      'export-fail': [],
      'monthly-start': [],
      'rates-fetch': [],
    });
    const fonts = join(PROJECT_ROOT, 'node_modules', 'dejavu-fonts-ttf', 'ttf');
    for (const face of ['DejaVuSans.ttf', 'DejaVuSans-Bold.ttf']) {
      expect(
        (await readFile(join(dir, 'export-finish', 'fonts', face))).equals(await readFile(join(fonts, face))),
      ).toBe(true);
    }
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

/** Runs a hook's shell command as CDK does (`bash -c`). */
async function sh(command: string): Promise<void> {
  await promisify(execFile)('bash', ['-c', command]);
}

/** Every file under `dir`, relative to it, sorted. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}
