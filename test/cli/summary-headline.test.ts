/**
 * After a gains run the CLI's summary names the headline figures, as the files hold them (read
 * here with csv-parse and added up apart from the code that wrote them): each tax year's net gain
 * and income, the warnings open; then the file to open first, and the earlier runs of the period.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliIo, main } from '../../lib/cli/main.ts';

function captureIo(): { io: CliIo; stdout: () => string } {
  const out: string[] = [];
  const io: CliIo = {
    stdout: { write: (text: string) => out.push(text) },
    stderr: { write: () => true },
    env: {},
    now: () => new Date(),
  };
  return { io, stdout: () => out.join('') };
}

/** A decimal string as a count of cents (the files' money has two decimals). */
const cents = (text: string): bigint => {
  const [whole = '0', fraction = ''] = text.replace('-', '').split('.');
  const value = BigInt(whole) * 100n + BigInt(`${fraction}00`.slice(0, 2));
  return text.startsWith('-') ? -value : value;
};
const asMoney = (value: bigint): string => {
  const abs = value < 0n ? -value : value;
  return `${value < 0n ? '-' : ''}${abs / 100n}.${String(abs % 100n).padStart(2, '0')}`;
};

describe('the summary of a gains run', () => {
  let dir: string;
  let first: string;
  let runFolder: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pbs-summary-'));
    const { io, stdout } = captureIo();
    const args = ['run', '--simulator', '--profile', 'demo', '--period', '2025', '--report', 'gains'];
    expect(await main([...args, '--tax-rules', 'us', '--out', dir], io)).toBe(0);
    first = stdout();
    const period = join(dir, 'reports', 'demo', '2025');
    runFolder = join(period, (await readdir(period))[0] ?? '');
  }, 120_000);
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const csv = async (suffix: string) =>
    parse(await readFile(join(runFolder, `demo_2025_${suffix}.csv`)), { bom: true, columns: true }) as Record<
      string,
      string
    >[];

  it("names the year's net gain and income as the Gains summary and Income files add up, and the warnings open", async () => {
    const summary = await csv('gains_summary');
    const net = summary
      .filter((row) => row.token === 'TOTAL')
      .reduce((sum, row) => sum + cents(row.net ?? ''), 0n);
    const income = (await csv('income')).find((row) => row.token === 'TOTAL')?.value ?? '';
    const warnings = (await csv('gains_warnings')).length;
    expect(first).toContain(`\n  Tax year 2025: net gain ${asMoney(net)} USD, income ${income} USD\n`);
    expect(first).toContain(
      `\n  Warnings open: ${warnings} (the Warnings sheet lists each, with what to do)\n`,
    );
  });

  it('names the workbook to open first, and prints no counter that is zero', () => {
    expect(first).toContain(`\nOpen first: ${join(runFolder, 'demo_2025.xlsx')} (its Read me sheet`);
    expect(first.split('\n').filter((line) => /^ {2}.*: 0$/.test(line))).toEqual([]);
  });

  it('says, on a second run of the period into the same folder, that an earlier run is beside it', async () => {
    const { io, stdout } = captureIo();
    const snapshot = join(runFolder, 'demo_2025_snapshot.ndjson.gz');
    expect(await main(['render', '--snapshot', snapshot, '--format', 'csv', '--out', dir], io)).toBe(0);
    expect(stdout()).toContain(
      '\n1 earlier run of this period beside it: run folders are named by their start (UTC)',
    );
  }, 120_000);
});
