/**
 * The docs' command test can fail: its extractor finds the blocks and their skip markers, and its
 * runner, given planted blocks in a fresh reader's folder, reports a documented command that
 * breaks (a misspelt flag, a month that does not exist) and a file a block names but never writes.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DocsMarkerError, extractBlocks, namedFiles, readerFolder, runBlocks } from './blocks.ts';

const repo = join(import.meta.dirname, '..', '..');

describe('extractBlocks', () => {
  const markdown = [
    '# A page',
    '```sh',
    'npm run demo',
    '```',
    '```json',
    '{ "not": "run" }',
    '```',
    '<!-- docs-test: skip (needs an AWS account) -->',
    '```bash',
    'aws s3 ls',
    '```',
    '```',
    'plain text',
    '```',
  ].join('\n');

  it('finds the sh and bash blocks with their lines, and the reason of a skipped one', () => {
    expect(extractBlocks(markdown, 'page.md')).toEqual([
      { file: 'page.md', line: 2, text: 'npm run demo' },
      { file: 'page.md', line: 9, text: 'aws s3 ls', skip: 'needs an AWS account' },
    ]);
  });

  it('refuses a skip marker without its reason, and a marker before a block that never runs', () => {
    const bare = '<!-- docs-test: skip -->\n```sh\nnpm test\n```\n';
    const beforeJson = '<!-- docs-test: skip (why) -->\n```json\n{}\n```\n';
    expect(() => extractBlocks(bare, 'a.md')).toThrow(DocsMarkerError);
    expect(() => extractBlocks(bare, 'a.md')).toThrow('a.md:1: "skip": a marker is "skip (the reason');
    expect(() => extractBlocks(beforeJson, 'b.md')).toThrow(
      'b.md:1: a docs-test marker before a ```json block',
    );
  });
});

describe('namedFiles', () => {
  it("names the flags' files and folders, the default folders, and what cat prints; not computed values", () => {
    const block = [
      '# a comment --out nowhere',
      'npm run pbs-export -- rates --demo',
      'npm run pbs-export -- run --period 2024 --report gains \\',
      '  --rates ecb:rates/DEMO-made-up_eurofxref-hist.csv --adjustments=adj/v1.json',
      'npm run pbs-export -- render --snapshot "$(ls -d out/*/ | tail -1)x.gz" --out rebuilt',
      'cat books/README.txt   # the Read me',
      'npm run pbs-export -- run --s3 s3://bucket/prefix --journal-chart <chart.json>',
    ].join('\n');
    expect(namedFiles(block).sort()).toEqual(
      [
        'adj/v1.json',
        'books/README.txt',
        'out',
        'rates',
        'rates/DEMO-made-up_eurofxref-hist.csv',
        'rebuilt',
      ].sort(),
    );
  });
});

describe('runBlocks, on planted blocks', () => {
  const folders: string[] = [];
  afterAll(async () => {
    await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
  });

  it('passes a block that works, and fails a broken command and a file named but never written', async () => {
    const folder = await readerFolder(repo);
    folders.push(folder);
    const planted = extractBlocks(
      [
        '```sh',
        'npm run pbs-export -- --version',
        'npm run pbs-export -- rates --demo --source ecb --dir made-up',
        '```',
        '```sh',
        '# a flag misspelt since the page was written',
        'npm run pbs-export -- run --simulator --profil demo --period 2025-10',
        'echo never reached',
        '```',
        '```sh',
        'npm run pbs-export -- run --simulator --period 2025-13 --out out',
        '```',
        '```sh',
        '# listing writes no folder: a page saying it does is stale',
        'npm run pbs-export -- adjustments --profile demo --dir adjustments-listed',
        '```',
      ].join('\n'),
      'planted.md',
    );
    const results = await runBlocks(planted, folder, 120_000);
    expect(
      results.map((result) => ({
        line: result.block.line,
        code: result.code,
        missing: result.missing,
        said: /--profil(?!e)|2025-13|no adjustments/.exec(result.output)?.[0] ?? null,
      })),
    ).toEqual([
      { line: 1, code: 0, missing: [], said: null },
      { line: 5, code: 2, missing: [], said: '--profil' },
      { line: 10, code: 2, missing: [], said: '2025-13' },
      { line: 13, code: 0, missing: ['adjustments-listed'], said: 'no adjustments' },
    ]);
  }, 300_000);
});
