/**
 * Issue #38, "Kept libraries": the code that runs in production (`lib/`, `functions/`, `bin/`, tests
 * left out) uses the libraries it keeps through their public API, and declares each package it loads
 * as a dependency. A library's private members (`._rows`, `._workbook`, `_writableState`) and its
 * files by path (`exceljs/lib/…`) can change in any release without notice: an upgrade would break
 * such code silently. These checks read the source.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Packages production code loads although they are devDependencies, each with why; every other
 * package it loads must be a dependency.
 */
const KNOWN_DEV_ONLY: Readonly<Record<string, string>> = {
  s3rver:
    'the local service (lib/local) runs S3 in-process: not part of the Lambda bundles, its own question',
  'aws-local-stepfunctions':
    'the local service (lib/local/local-runner.ts) runs the synthesized state machine: not part of the Lambda bundles',
};

/** Production source files (TypeScript, tests left out), repository-relative, with their text. */
function productionSources(): { file: string; text: string }[] {
  const files: string[] = [];
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && !/\.test\.ts$/.test(entry.name)) files.push(path);
    }
  };
  for (const folder of ['lib', 'functions', 'bin']) walk(join(ROOT, folder));
  return files.map((path) => ({ file: relative(ROOT, path), text: readFileSync(path, 'utf8') }));
}

/** Every module a source names: `from '…'`, `import('…')`, `declare module '…'`; `type` only when all of it is types. */
function modulesOf(text: string): { name: string; typeOnly: boolean }[] {
  const found: { name: string; typeOnly: boolean }[] = [];
  for (const match of text.matchAll(/^\s*(import|export)\s+(type\s+)?[^'";]*?\bfrom\s+'([^']+)'/gm)) {
    found.push({ name: match[3] as string, typeOnly: match[2] !== undefined });
  }
  for (const match of text.matchAll(/\bimport\(\s*'([^']+)'\s*\)|declare\s+module\s+'([^']+)'/g)) {
    found.push({ name: (match[1] ?? match[2]) as string, typeOnly: match[2] !== undefined });
  }
  return found.filter(
    ({ name }) => !name.startsWith('.') && !name.startsWith('node:') && !name.startsWith('#'),
  );
}

/** `@scope/name/sub` → [`@scope/name`, `./sub`]; `name` → [`name`, `.`]. */
function packageOf(specifier: string): [string, string] {
  const parts = specifier.split('/');
  const length = specifier.startsWith('@') ? 2 : 1;
  const rest = parts.slice(length).join('/');
  return [parts.slice(0, length).join('/'), rest === '' ? '.' : `./${rest}`];
}

/** Whether a package's `exports` map offers `subpath` (patterns with `*` included). */
function exported(name: string, subpath: string): boolean {
  if (subpath === '.') return true;
  const manifest = JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as {
    exports?: unknown;
  };
  const { exports } = manifest;
  if (typeof exports !== 'object' || exports === null) return false;
  return Object.keys(exports).some((key) =>
    key.includes('*')
      ? subpath.startsWith(key.slice(0, key.indexOf('*'))) &&
        subpath.endsWith(key.slice(key.indexOf('*') + 1))
      : key === subpath,
  );
}

describe('production code and the libraries it keeps', () => {
  const sources = productionSources();

  it('reads no private member of a library (`._rows`, `._workbook`, `["_name"]`)', () => {
    const uses = sources.flatMap(({ file, text }) =>
      [...text.matchAll(/\.\s*_[A-Za-z]\w*|\[\s*['"]_[A-Za-z]\w*['"]\s*\]/g)].map(
        (match) => `${file}: ${match[0]}`,
      ),
    );

    expect(uses).toEqual([]);
  });

  it("loads a library's modules only by the paths its package exports (no `exceljs/lib/…`)", () => {
    const deep = sources.flatMap(({ file, text }) =>
      modulesOf(text)
        .filter(({ name }) => !exported(...packageOf(name)))
        .map(({ name }) => `${file}: ${name}`),
    );

    expect(deep).toEqual([]);
  });

  it('loads at run time only packages package.json lists as dependencies', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const undeclared = sources.flatMap(({ file, text }) =>
      modulesOf(text)
        .filter(({ typeOnly }) => !typeOnly)
        .map(({ name }) => packageOf(name)[0])
        .filter((name) => manifest.dependencies[name] === undefined && KNOWN_DEV_ONLY[name] === undefined)
        .map((name) => `${file}: ${name}`),
    );

    expect(undeclared).toEqual([]);
  });
});
