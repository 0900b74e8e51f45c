import { join } from 'node:path';
import type { BuildOptions } from 'esbuild';

/**
 * How each Lambda function's code is bundled: shared by `infra/pbs-function.ts` (CDK's local
 * esbuild) and `npm run bench -- --only bundles` (esbuild's API), so the sizes and start times the
 * bench prints are those of what is deployed.
 */

/** The Node version the functions run on, as esbuild's target. */
export const BUNDLE_TARGET = 'node22';

/** CommonJS dependencies (archiver and others) call require() for Node built-ins. */
export const BUNDLE_BANNER =
  "import{createRequire as __pbsCreateRequire}from'node:module';const require=__pbsCreateRequire(import.meta.url);";

/** package.json fields esbuild resolves a dependency's entry by: the ESM build first. */
export const BUNDLE_MAIN_FIELDS = ['module', 'main'];

/**
 * package.json conditions of every function's bundle. `pbs-lambda` picks the AWS SDK loaders that
 * import statically (`#aws-sdk-loaders`, `lib/aws-sdk.ts`), so each bundle carries only the
 * commands the project sends. `module` is esbuild's own default, which naming any condition drops.
 */
export const BUNDLE_CONDITIONS = ['pbs-lambda', 'module'];

/**
 * Dependencies that only some functions run (by entry, repository-relative): the others bundle a
 * stand-in that throws if reached (`infra/stand-ins/`). archiver writes zips: the finish's workbooks
 * and the HTTP API's archives of a set; every function imports the export pipeline, whose XLSX
 * writer loads it.
 */
export const EXCLUSIVE_DEPENDENCIES: Record<
  string,
  { entries: readonly string[]; standIn: string; modules?: readonly string[] }
> = {
  archiver: {
    entries: ['functions/export-finish.ts', 'functions/http-api.ts'],
    standIn: 'infra/stand-ins/archiver.ts',
  },
  // The tax pack is not written in Lambda (no fonts shipped): see `infra/stand-ins/pdfkit.ts`.
  pdfkit: { entries: [], standIn: 'infra/stand-ins/pdfkit.ts' },
};

/** The aliases of one function's bundle: each exclusive dependency it does not run → its stand-in. */
export function bundleAliases(entry: string, projectRoot: string): Record<string, string> {
  const aliases: Record<string, string> = {};
  for (const [name, { entries, standIn, modules = [] }] of Object.entries(EXCLUSIVE_DEPENDENCIES)) {
    if (entries.includes(entry)) continue;
    for (const path of [name, ...modules]) aliases[path] = join(projectRoot, standIn);
  }
  return aliases;
}

/** Where `cdk synth` keeps the functions' source maps: beside the assets, outside each code package. */
export const SOURCE_MAP_FOLDER = 'source-maps';

/**
 * esbuild's options for one function as CDK builds it (`PbsFunction`): ESM, minified with the
 * class names kept (the state machine's retriers match error names), the whole SDK bundled.
 */
export function functionBuildOptions(entry: string, projectRoot: string, outfile: string): BuildOptions {
  return {
    entryPoints: [join(projectRoot, entry)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: BUNDLE_TARGET,
    minify: true,
    keepNames: true,
    sourcemap: true,
    sourcesContent: false,
    mainFields: BUNDLE_MAIN_FIELDS,
    conditions: BUNDLE_CONDITIONS,
    banner: { js: BUNDLE_BANNER },
    alias: bundleAliases(entry, projectRoot),
    logLevel: 'error',
  };
}

/**
 * Worker threads a function starts (by entry, repository-relative): each is bundled on its own
 * (a worker needs an entry file of its own) and written beside the function's `index.mjs`, where
 * the code that starts it looks (`lib/export/report/writers/xlsx-thread.ts`: without it, the
 * workbook is written on the main thread).
 */
export const WORKER_ENTRIES: Record<string, readonly { entry: string; outfile: string }[]> = {
  'functions/export-finish.ts': [
    { entry: 'lib/export/report/writers/xlsx-worker.ts', outfile: 'xlsx-worker.mjs' },
  ],
};

/** The esbuild command line bundling the worker threads of function `entry` into `outputDir`. */
export function workerBundleCommands(entry: string, projectRoot: string, outputDir: string): string[] {
  const quote = (text: string) => `'${text.replace(/'/g, "'\\''")}'`;
  const esbuild = join(projectRoot, 'node_modules', '.bin', 'esbuild');
  return (WORKER_ENTRIES[entry] ?? []).map((worker) =>
    [
      esbuild,
      join(projectRoot, worker.entry),
      '--bundle',
      '--platform=node',
      '--format=esm',
      `--target=${BUNDLE_TARGET}`,
      '--minify',
      '--keep-names',
      `--main-fields=${BUNDLE_MAIN_FIELDS.join(',')}`,
      `--banner:js=${BUNDLE_BANNER}`,
      '--log-level=error',
      `--outfile=${join(outputDir, worker.outfile)}`,
    ]
      .map(quote)
      .join(' '),
  );
}
