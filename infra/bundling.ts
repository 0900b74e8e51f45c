import { join } from 'node:path';
import type { BuildOptions } from 'esbuild';
import { BUNDLED_FONTS } from '../lib/export/index.ts';

/**
 * How each Lambda function's code is bundled: shared by `infra/pbs-function.ts` (CDK's local
 * esbuild) and `npm run bench -- --only bundles` (esbuild's API), so the sizes and start times the
 * bench prints are those of what is deployed.
 */

/** The Node version the functions run on, as esbuild's target. */
export const BUNDLE_TARGET = 'node22';

/** CommonJS dependencies (exceljs and others) call require() for Node built-ins. */
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

/** Where `cdk synth` keeps the functions' source maps: beside the assets, outside each code package. */
export const SOURCE_MAP_FOLDER = 'source-maps';

/**
 * esbuild's options for one function as CDK builds it (`PbsFunction`): ESM, minified with the
 * class names kept (the state machine's retriers match error names), the whole SDK bundled. A
 * bundle holds what its function runs and nothing else: the project's modules are side-effect
 * free (`"sideEffects": false` in `package.json`), so esbuild leaves out every module no used
 * code reaches, and each export task's handler builds only its own task (`lib/workflow/*-task.ts`):
 * only the finish reaches the renderer (exceljs, pdfkit).
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

/**
 * Files a function reads beside its bundle (by entry; `from` repository-relative, `to` relative to
 * the bundle's folder), copied by the bundling hook. The finish writes the PDF tax pack: the PDF
 * writer looks for its two DejaVu faces in `fonts/` beside the bundle
 * (`lib/export/report/writers/pdf-layout.ts`); the fonts' licence goes with them.
 */
export const BUNDLE_FILES: Record<string, readonly { from: string; to: string }[]> = {
  'functions/export-finish.ts': [
    ...BUNDLED_FONTS.files.map((file) => ({
      from: `node_modules/dejavu-fonts-ttf/ttf/${file}`,
      to: `${BUNDLED_FONTS.folder}/${file}`,
    })),
    { from: 'node_modules/dejavu-fonts-ttf/LICENSE', to: `${BUNDLED_FONTS.folder}/LICENSE` },
  ],
};

/** The shell commands copying the {@link BUNDLE_FILES} of function `entry` into `outputDir`. */
export function bundleFileCommands(entry: string, projectRoot: string, outputDir: string): string[] {
  const quote = (text: string) => `'${text.replace(/'/g, "'\\''")}'`;
  return (BUNDLE_FILES[entry] ?? []).map(({ from, to }) => {
    const target = join(outputDir, to);
    return `mkdir -p ${quote(join(target, '..'))} && cp ${quote(join(projectRoot, from))} ${quote(target)}`;
  });
}
