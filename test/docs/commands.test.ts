/**
 * Every shell block of README.md and docs/**\/*.md runs as written (issue 40): extracted, run in a
 * fresh folder that looks like a checkout (one folder per Markdown file, its blocks in order),
 * against the embedded simulator, and each must exit 0 and leave the files it names. A block that
 * must not run says why (`<!-- docs-test: skip (reason) -->`); the skipped ones are listed.
 */
import { execFileSync } from 'node:child_process';
import { lstat, readdir, readFile, rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import pLimit from 'p-limit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BlockResult, extractBlocks, readerFolder, runBlocks, type ShellBlock } from './blocks.ts';

const repo = join(import.meta.dirname, '..', '..');

async function markdownFiles(): Promise<string[]> {
  const docs = (await readdir(join(repo, 'docs'), { recursive: true }))
    .filter((name) => name.endsWith('.md'))
    .map((name) => join('docs', name));
  return ['README.md', ...docs.sort()];
}

const blocks: ShellBlock[] = [];
for (const file of await markdownFiles())
  blocks.push(...extractBlocks(await readFile(join(repo, file), 'utf8'), file));
const runnable = blocks.filter((block) => block.skip === undefined);
const skipped = blocks.filter((block) => block.skip !== undefined);
const where = (block: ShellBlock) => `${block.file}:${block.line}`;

describe('the commands of README.md and docs/', () => {
  const results = new Map<ShellBlock, BlockResult>();
  const folders: string[] = [];
  beforeAll(async () => {
    const byFile = new Map<string, ShellBlock[]>();
    for (const block of runnable) byFile.set(block.file, [...(byFile.get(block.file) ?? []), block]);
    // Two files at a time (the machine's cores), each file's blocks in order in its own folder.
    const limit = pLimit(2);
    await Promise.all(
      [...byFile.values()].map((fileBlocks) =>
        limit(async () => {
          const folder = await readerFolder(repo);
          folders.push(folder);
          for (const result of await runBlocks(fileBlocks, folder, 300_000))
            results.set(result.block, result);
        }),
      ),
    );
    const list = skipped.map((block) => `  ${where(block)}: ${block.skip}`).join('\n');
    process.stdout.write(
      `docs commands: ${runnable.length} blocks run, ${skipped.length} skipped:\n${list}\n`,
    );
  }, 1_200_000);
  afterAll(async () => {
    await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
  });

  it('finds the blocks: the README has its quick start, UK and DE examples among them, none skipped', () => {
    const readme = runnable.filter((block) => block.file === 'README.md').map((block) => block.text);
    expect({
      quickStart: readme.some((text) => text.includes('npm ci && npm run demo')),
      uk: readme.some((text) => /--tax-rules uk .*hmrc:/s.test(text) && text.includes('rates --demo')),
      de: readme.some((text) => /--tax-rules de .*ecb:/s.test(text)),
      skippedInReadme: skipped.filter((block) => block.file === 'README.md').map(where),
    }).toEqual({ quickStart: true, uk: true, de: true, skippedInReadme: [] });
  });

  it('leaves nothing a `git status` would show: every file or folder the commands write is git-ignored', async () => {
    const written = new Set<string>();
    for (const folder of folders) {
      for (const entry of await readdir(folder)) {
        const stat = await lstat(join(folder, entry));
        if (!stat.isSymbolicLink()) written.add(stat.isDirectory() ? `${entry}/` : entry);
      }
    }
    const notIgnored = [...written].filter((entry) => !ignored(entry));
    expect({ written: written.size > 0, notIgnored }).toEqual({ written: true, notIgnored: [] });
  });

  it.each(runnable.map((block) => [where(block), block] as const))(
    '%s exits 0 and leaves the files it names',
    (_, block) => {
      const result = results.get(block);
      const failure =
        result === undefined ? 'not run' : `in ${relative(repo, result.folder)}:\n${result.output}`;
      expect({ code: result?.code, missing: result?.missing }, failure).toEqual({ code: 0, missing: [] });
    },
  );
});

/** Whether the repository's .gitignore ignores `entry` (a folder ends with `/`) at its top level. */
function ignored(entry: string): boolean {
  try {
    execFileSync('git', ['check-ignore', '--no-index', '-q', entry], { cwd: repo, stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
