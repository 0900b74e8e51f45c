/**
 * What the German and UK tax packs say about their figures (issue 39, item 10): the period as
 * the days it covers in its zone (not UTC instants), and which published rates converted the
 * values (the ECB's, HMRC's, with their files). The CLI runs in process on the embedded
 * simulator's demo data, with rates files written here in the ECB's and HMRC's layouts; the
 * packs are read back with poppler's `pdftotext`.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliIo, main } from '../../lib/cli/main.ts';
import { ecbHistCsv, hmrcMonthXml } from '../support/rates.ts';

const run = promisify(execFile);

const io = (): CliIo => ({
  stdout: { write: () => undefined },
  stderr: { write: () => undefined },
  env: {},
  now: () => new Date('2026-11-22T10:00:00.000Z'),
});

/** The pack's text, runs of spaces as one. */
async function packText(out: string, period: string, base: string): Promise<string> {
  const folder = join(out, 'reports/demo', period);
  const [runDir] = (await readdir(folder)).filter((name) => !name.startsWith('.'));
  const pdf = join(folder, runDir as string, `${base}_tax_pack.pdf`);
  const { stdout } = await run('pdftotext', ['-layout', pdf, '-']);
  return stdout.replace(/\s+/g, ' ');
}

describe('the German and UK tax packs: the period in days and the rates that converted the figures', () => {
  let dir: string;
  let de = '';
  let uk = '';

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pbs-pack-facts-'));
    await mkdir(join(dir, 'rates'));
    const ecb = join(dir, 'rates', 'eurofxref-hist.csv');
    await writeFile(ecb, ecbHistCsv('2025-06-30'));
    const hmrc: string[] = [];
    for (const [year, month] of [2022, 2023, 2024, 2025].flatMap((y) =>
      [...Array(12).keys()].map((m) => [y, m + 1]),
    )) {
      const file = join(dir, 'rates', `monthly_xml_${year}-${String(month).padStart(2, '0')}.xml`);
      await writeFile(file, hmrcMonthXml(year as number, month as number));
      hmrc.push(file);
    }
    const common = ['run', '--simulator', '--profile', 'demo', '--report', 'gains', '--format', 'csv,xlsx'];
    const codes = [
      await main(
        [
          ...common,
          ...['--period', '2024', '--time-zone', 'Europe/Berlin', '--tax-rules', 'de'],
          ...['--rates', `ecb:${ecb}`, '--out', join(dir, 'de')],
        ],
        io(),
      ),
      await main(
        [
          ...common,
          ...['--period', '2024-04-06..2025-04-05', '--time-zone', 'Europe/London', '--tax-rules', 'uk'],
          ...hmrc.flatMap((file) => ['--rates', `hmrc:${file}`]),
          ...['--out', join(dir, 'uk')],
        ],
        io(),
      ),
    ];
    expect(codes).toEqual([0, 0]);
    de = await packText(join(dir, 'de'), '2024', 'demo_2024');
    uk = await packText(join(dir, 'uk'), '2024-04-06_2025-04-05', 'demo_2024-04-06_2025-04-05');
  }, 300_000);

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('gives the period as its first and last day in its zone, never as UTC instants', () => {
    expect(de).toContain('Period 2024-01-01 to 2024-12-31 (days in Europe/Berlin)');
    expect(uk).toContain('Period 2024-04-06 to 2025-04-05 (days in Europe/London)');
    // The period's bounds as instants were 2023-12-31T23:00:00.000Z and 2024-04-05T23:00:00.000Z.
    expect([de, uk].filter((text) => /T2[23]:00:00\.000Z|end exclusive/.test(text))).toEqual([]);
  });

  it('names the rates that converted the figures: the ECB in the German pack, HMRC in the UK one, with the files', () => {
    expect(de).toContain(
      'Currency conversion values not in EUR converted into it before the gains were computed, at the ECB',
    );
    expect(de).toContain('eurofxref-hist.csv (sha256 ');
    expect(uk).toContain(
      'Currency conversion values not in GBP converted into it before the gains were computed, at the HMRC',
    );
    expect(uk).toContain('monthly_xml_2024-04.xml (sha256 ');
  });
});
