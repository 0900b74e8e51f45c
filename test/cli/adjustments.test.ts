/**
 * Adjustments end to end: the CLI on the embedded simulator exports the gains reports without and
 * with an adjustments file (missing lots for a zero-basis disposal the first run warned about),
 * then `render` rebuilds the adjusted figures from the snapshot and the file the manifest names.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliIo, main } from '../../lib/cli/main.ts';

function captureIo() {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    stdout: { write: (text: string) => out.push(text) },
    stderr: { write: (text: string) => err.push(text) },
    env: {},
    now: () => new Date('2026-11-22T10:00:00.000Z'),
  };
  return { io, stderr: () => err.join('') };
}

const PERIOD = 'reports/demo/2025';
const BASE = 'demo_2025';
const RUN = [
  'run',
  '--simulator',
  '--transactions',
  '600',
  '--seed',
  '3',
  '--profile',
  'demo',
  '--period',
  '2025',
  '--report',
  'gains',
  '--format',
  'csv',
];

async function runFolder(out: string): Promise<string> {
  const [runDir] = (await readdir(join(out, PERIOD))).filter((n) => !n.startsWith('.'));
  return join(out, PERIOD, runDir as string);
}

async function csvRows(file: string): Promise<Record<string, string>[]> {
  return parse(await readFile(file), { bom: true, columns: true }) as Record<string, string>[];
}

const sha256 = async (file: string) =>
  createHash('sha256')
    .update(await readFile(file))
    .digest('hex');

describe('pbs-export run/render --adjustments', () => {
  let dir: string;
  let plain: string;
  let adjusted: string;
  let file: string;
  let warning: Record<string, string>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pbs-adjustments-'));
    const first = captureIo();
    expect(await main([...RUN, '--out', join(dir, 'plain')], first.io)).toBe(0);
    plain = await runFolder(join(dir, 'plain'));
    const warnings = await csvRows(join(plain, `${BASE}_gains_warnings.csv`));
    warning = warnings.find((w) => w.kind === 'zero-basis') as Record<string, string>;
    file = join(dir, 'adjustments-v1.json');
    const document = {
      schema: 'pbs-export/adjustments@1',
      profile: 'demo',
      version: 1,
      adjustments: [
        {
          id: 'm1',
          kind: 'missing-lots',
          by: 'ann',
          at: '2026-11-21T09:00:00Z',
          why: 'bought on an exchange the profile does not hold',
          txId: warning.transaction_id,
          lots: [
            {
              token: warning.token,
              quantity: warning.quantity,
              cost: '1',
              acquiredAt: '2015-01-01T00:00:00Z',
            },
          ],
        },
      ],
    };
    await writeFile(file, `${JSON.stringify(document, null, 2)}\n`);
    const second = captureIo();
    expect(await main([...RUN, '--adjustments', file, '--out', join(dir, 'adjusted')], second.io)).toBe(0);
    adjusted = await runFolder(join(dir, 'adjusted'));
  }, 240_000);
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('resolves the warning the adjustment answers and lists the adjustment', async () => {
    expect(warning).toBeDefined();
    const rows = await csvRows(join(adjusted, `${BASE}_gains_warnings.csv`));
    const same = rows.filter(
      (w) =>
        w.kind === 'zero-basis' &&
        w.transaction_id === warning.transaction_id &&
        w.token === warning.token &&
        w.quantity === warning.quantity,
    );
    expect(same.map((w) => w.resolution)).toEqual(['resolved by m1']);
    const listed = await csvRows(join(adjusted, `${BASE}_adjustments.csv`));
    expect(listed.find((row) => row.id === 'm1')).toMatchObject({
      kind: 'missing-lots',
      basis_given: '1.00',
    });
    // The disposal now matches the synthetic lot.
    const disposals = await csvRows(join(adjusted, `${BASE}_disposals_exact.csv`));
    expect(disposals.filter((d) => d.acquired_tx_id === 'adj:m1:1').map((d) => d.quantity)).toEqual([
      warning.quantity,
    ]);
  });

  it('records the adjustments in the manifest (profile, version, SHA-256 of the file)', async () => {
    const manifest = JSON.parse(await readFile(join(adjusted, 'manifest.json'), 'utf8'));
    expect(manifest.adjustments).toEqual({ profile: 'demo', version: 1, sha256: await sha256(file) });
  });

  it('render rebuilds byte-identical gains files from the snapshot and the adjustments file', async () => {
    const again = captureIo();
    const code = await main(
      [
        'render',
        '--snapshot',
        join(adjusted, `${BASE}_snapshot.ndjson.gz`),
        '--adjustments',
        file,
        '--out',
        join(dir, 'again'),
      ],
      again.io,
    );
    expect({ code, err: again.stderr() }).toEqual({ code: 0, err: '' });
    const rendered = await runFolder(join(dir, 'again'));
    for (const name of [
      'disposals',
      'disposals_exact',
      'gains_warnings',
      'adjustments',
      'income_exact',
      'holdings_exact',
    ]) {
      const csv = `${BASE}_${name}.csv`;
      expect(await readFile(join(rendered, csv), 'utf8'), csv).toBe(
        await readFile(join(adjusted, csv), 'utf8'),
      );
    }
  });

  it('render writes the Adjustments sheet and the Resolution column into the workbook', async () => {
    const io = captureIo();
    const snapshot = join(adjusted, `${BASE}_snapshot.ndjson.gz`);
    const code = await main(
      [
        'render',
        '--snapshot',
        snapshot,
        '--adjustments',
        file,
        '--format',
        'xlsx',
        '--out',
        join(dir, 'xlsx'),
      ],
      io.io,
    );
    expect({ code, err: io.stderr() }).toEqual({ code: 0, err: '' });
    const folder = await runFolder(join(dir, 'xlsx'));
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(join(folder, `${BASE}.xlsx`));
    const sheet = workbook.getWorksheet('Adjustments');
    expect(sheet?.getRow(2).getCell(1).value).toBe('m1');
    const warnings = workbook.getWorksheet('Warnings');
    expect(((warnings?.getRow(1).values ?? []) as unknown[]).includes('Resolution')).toBe(true);
    // The tax pack counts the open warnings and says how many the adjustments resolved.
    const { stdout } = await promisify(execFile)('pdftotext', [
      '-raw',
      join(folder, `${BASE}_tax_pack.pdf`),
      '-',
    ]);
    expect(stdout.replace(/\s+/g, ' ')).toContain(
      "1 more were resolved by the preparer's adjustments (the Adjustments sheet lists them).",
    );
  }, 120_000);

  it('render refuses to leave out the adjustments the manifest names, or to take another file', async () => {
    const snapshot = join(adjusted, `${BASE}_snapshot.ndjson.gz`);
    const without = captureIo();
    expect(await main(['render', '--snapshot', snapshot, '--out', join(dir, 'x')], without.io)).toBe(2);
    expect(without.stderr()).toContain(
      "--adjustments: the snapshot's run used the adjustments of profile demo, version 1",
    );
    const changed = join(dir, 'changed.json');
    await writeFile(changed, (await readFile(file, 'utf8')).replace('"ann"', '"bob"'));
    const other = captureIo();
    expect(
      await main(
        ['render', '--snapshot', snapshot, '--adjustments', changed, '--out', join(dir, 'y')],
        other.io,
      ),
    ).toBe(1);
    expect(other.stderr()).toContain(`but the run recorded ${await sha256(file)}`);
  });

  it('fails with exit 1 naming an adjustment whose transaction the data does not have', async () => {
    const unknown = join(dir, 'unknown.json');
    const document = JSON.parse(await readFile(file, 'utf8'));
    document.adjustments[0].txId = 'no-such-tx';
    await writeFile(unknown, JSON.stringify(document));
    const io = captureIo();
    expect(await main([...RUN, '--adjustments', unknown, '--out', join(dir, 'z')], io.io)).toBe(1);
    expect(io.stderr()).toContain(
      'adjustment m1 names transaction "no-such-tx", which the data does not have',
    );
  }, 120_000);
});
