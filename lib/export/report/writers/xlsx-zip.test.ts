import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import archiver from 'archiver';
import { describe, expect, it } from 'vitest';
import { ZipWriter } from './xlsx-zip.ts';

/** An output that keeps what it is given, draining after every `every` writes (backpressure). */
function collector(highWaterMark = 16 * 1024): { out: Writable; bytes: () => Buffer } {
  const chunks: Buffer[] = [];
  const out = new Writable({
    highWaterMark,
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(Buffer.from(chunk));
      setImmediate(callback);
    },
  });
  return { out, bytes: () => Buffer.concat(chunks) };
}

/** Entries as the workbook appends them: texts, and streams fed in pieces after the append. */
type Entry = { name: string; text: string } | { name: string; pieces: (string | Buffer)[] };

function streamOf(pieces: (string | Buffer)[]): PassThrough {
  const stream = new PassThrough({ highWaterMark: 1024 });
  void (async () => {
    for (const piece of pieces) {
      if (!stream.write(piece)) await new Promise((resolve) => stream.once('drain', resolve));
    }
    stream.end();
  })();
  return stream;
}

async function withArchiver(entries: Entry[], date: Date): Promise<Buffer> {
  const { out, bytes } = collector();
  const zip = archiver('zip', { highWaterMark: 32 * 1024 });
  zip.pipe(out);
  for (const entry of entries) {
    zip.append('text' in entry ? entry.text : streamOf(entry.pieces), { name: entry.name, date });
  }
  await zip.finalize();
  await new Promise((resolve) => out.once('finish', resolve));
  return bytes();
}

async function withZipWriter(entries: Entry[], date: Date): Promise<Buffer> {
  const { out, bytes } = collector();
  const zip = new ZipWriter(out, date);
  for (const entry of entries) zip.append('text' in entry ? entry.text : streamOf(entry.pieces), entry.name);
  await zip.finalize();
  await new Promise((resolve) => (out.writableFinished ? resolve(undefined) : out.once('finish', resolve)));
  return bytes();
}

const xmlRows = (count: number) =>
  Array.from({ length: count }, (_, i) => `<row r="${i + 1}"><c r="A${i + 1}"><v>${i * 7.25}</v></c></row>`);

describe('ZipWriter', () => {
  it('writes the bytes archiver 5.3.2 writes for the same entries (texts, streams, non-ASCII, a 1 MB random entry)', async () => {
    const entries: Entry[] = [
      { name: 'xl/theme/theme1.xml', text: '<a:theme name="Office Theme">€ ünïcode</a:theme>' },
      { name: '_rels/.rels', text: '<Relationships/>' },
      { name: 'xl/worksheets/sheet1.xml', pieces: xmlRows(10_000) },
      { name: 'xl/worksheets/sheet2.xml', pieces: [randomBytes(1 << 20), Buffer.from('tail')] },
      { name: 'xl/worksheets/sheet3.xml', pieces: [] },
      { name: 'docProps/ñame.xml', text: 'x'.repeat(100_000) },
      { name: 'empty.txt', text: '' },
    ];
    for (const date of [
      new Date('2026-12-08T01:23:45.678Z'),
      new Date('1975-01-01'),
      new Date('2050-06-01'),
    ]) {
      const ours = await withZipWriter(entries, date);
      expect(ours.equals(await withArchiver(entries, date))).toBe(true);
    }
  });

  it('writes a zip that unzip and Python read back, each entry the bytes given', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'zip-writer-test-'));
    try {
      const big = randomBytes(300_000).toString('base64');
      const zip = await withZipWriter(
        [
          { name: 'a.txt', text: 'hello' },
          { name: 'b/big.xml', pieces: [big.slice(0, 1000), big.slice(1000)] },
        ],
        new Date('2026-12-08T00:00:00Z'),
      );
      const file = join(dir, 'out.zip');
      await writeFile(file, zip);
      const script =
        'import sys, zipfile, hashlib\nz = zipfile.ZipFile(sys.argv[1])\nassert z.testzip() is None\nfor i in z.infolist(): print(i.filename, i.file_size, hashlib.sha256(z.read(i)).hexdigest(), i.date_time)';
      const listing = execFileSync('python3', ['-c', script, file], { encoding: 'utf8' });
      const sha = (text: string) =>
        execFileSync(
          'python3',
          ['-c', 'import sys,hashlib;print(hashlib.sha256(sys.stdin.buffer.read()).hexdigest())'],
          {
            input: text,
            encoding: 'utf8',
          },
        ).trim();
      expect(listing.trim().split('\n')).toEqual([
        `a.txt 5 ${sha('hello')} (2026, 12, 8, 0, 0, 0)`,
        `b/big.xml ${big.length} ${sha(big)} (2026, 12, 8, 0, 0, 0)`,
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('rejects `failed` when an entry stream fails', async () => {
    const { out } = collector();
    const zip = new ZipWriter(out, new Date());
    const entry = new PassThrough();
    zip.append(entry, 'broken.xml');
    entry.write('<a>');
    entry.destroy(new Error('source broke'));
    await expect(zip.failed).rejects.toThrow('source broke');
  });
});
