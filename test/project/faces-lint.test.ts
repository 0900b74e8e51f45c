/**
 * `npm run lint` keeps the folders' faces (docs/developer/faces.md): dependency-cruiser, run with the
 * project's own `.dependency-cruiser.cjs`, refuses an import past a face (type-only too), a circle,
 * an arrow up and a part missing from the layers, each by its rule's name; and the real tree passes.
 *
 * The planted files live in a temporary copy (the config and tsconfig.json beside a few small
 * modules under real part names), never in the tree, so other runs never see them. The cruiser
 * runs on the Node of the registry's `node` package (node_modules/.bin/node): it needs Node 22.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const NODE = join(ROOT, 'node_modules', '.bin', 'node');
const CRUISER = join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruiser.mjs');

interface Cruise {
  exitCode: number;
  /** Each violation as the lint prints it, on one line: `rule: from → to` (a circle: every file of it). */
  violations: string[];
}

/** Runs the cruiser on `paths` in `cwd` with the project's config, as `npm run lint` does. */
function cruise(cwd: string, paths: string[]): Promise<Cruise> {
  const args = [CRUISER, ...paths, '--config', '.dependency-cruiser.cjs', '--output-type', 'err'];
  return new Promise((resolve, reject) => {
    execFile(NODE, args, { cwd, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const exitCode = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
      if (exitCode !== 0 && !stdout.includes('dependency violations')) {
        reject(new Error(`dependency-cruiser failed (exit ${exitCode}): ${stderr}`));
        return;
      }
      const violations = stdout
        .split(/\n\s*\n|\n(?=\s*error )/)
        .map((block) => block.replace(/\s+/g, ' ').trim())
        .filter((block) => block.startsWith('error '))
        .map((block) => block.slice('error '.length));
      resolve({ exitCode, violations });
    });
  });
}

/** A temporary project: the real config and tsconfig.json, and `files` (path → text). */
async function plant(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'faces-lint-'));
  await copyFile(join(ROOT, '.dependency-cruiser.cjs'), join(dir, '.dependency-cruiser.cjs'));
  await copyFile(join(ROOT, 'tsconfig.json'), join(dir, 'tsconfig.json'));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}

/**
 * A small project under real part names: storage (layer 2) with a face, jobs (layer 5) above it.
 * Each `bad-*` file breaks one rule once; `good.ts` imports through the face, downwards.
 */
const PLANTED = {
  'lib/storage/index.ts': "export { isGone } from './answers.ts';\nexport type { Gone } from './kinds.ts';\n",
  'lib/storage/answers.ts':
    "import type { Gone } from './kinds.ts';\nexport const isGone = (g: Gone) => g.gone;\n",
  'lib/storage/kinds.ts': 'export interface Gone {\n  gone: boolean;\n}\n',
  'lib/jobs/index.ts': "export { good } from './good.ts';\n",
  'lib/jobs/good.ts':
    "import { type Gone, isGone } from '../storage/index.ts';\nexport const good = (g: Gone) => isGone(g);\n",
  'lib/jobs/bad-past-face.ts':
    "import { isGone } from '../storage/answers.ts';\nexport const bad = isGone;\n",
  'lib/jobs/bad-type-past-face.ts':
    "import type { Gone } from '../storage/kinds.ts';\nexport type Bad = Gone;\n",
  'bin/bad-tool.ts': "import { isGone } from '../lib/storage/answers.ts';\nexport const tool = isGone;\n",
  'lib/jobs/bad-circle-a.ts': "import { b } from './bad-circle-b.ts';\nexport const a = () => b;\n",
  'lib/jobs/bad-circle-b.ts': "import { a } from './bad-circle-a.ts';\nexport const b = () => a;\n",
  'lib/storage/bad-arrow-up.ts': "import { good } from '../jobs/index.ts';\nexport const up = good;\n",
  'lib/newpart/index.ts': "import { isGone } from '../storage/index.ts';\nexport const n = isGone;\n",
};

let planted: string | undefined;
afterAll(async () => {
  if (planted !== undefined) await rm(planted, { recursive: true, force: true });
});

describe('the faces lint (dependency-cruiser with .dependency-cruiser.cjs)', () => {
  it('fails on planted imports past a face, a circle, an arrow up and an unlisted part, naming each rule', async () => {
    planted = await plant(PLANTED);
    const result = await cruise(planted, ['lib', 'bin']);
    expect(result.violations.sort()).toEqual([
      'no-arrow-up: lib/storage/bad-arrow-up.ts → lib/jobs/index.ts',
      'no-circular: lib/jobs/bad-circle-a.ts → lib/jobs/bad-circle-b.ts → lib/jobs/bad-circle-a.ts',
      'no-import-past-face: bin/bad-tool.ts → lib/storage/answers.ts',
      'no-import-past-face: lib/jobs/bad-past-face.ts → lib/storage/answers.ts',
      'no-import-past-face: lib/jobs/bad-type-past-face.ts → lib/storage/kinds.ts',
      'no-unlisted-part: lib/newpart/index.ts → lib/storage/index.ts',
    ]);
    expect(result.exitCode).not.toBe(0);
  });

  it('passes on the real tree', async () => {
    const result = await cruise(ROOT, ['lib', 'bin', 'functions', 'infra', 'bench']);
    expect(result.violations).toEqual([]);
    expect(result.exitCode).toBe(0);
  });
});
