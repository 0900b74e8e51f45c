/**
 * `pbs-export rates`: the ECB's and HMRC's files downloaded as published (from a loopback server
 * serving their layouts at their published paths: the real hosts are not reached), and the
 * made-up demo files, which a UK run then converts with as the README shows. The CLI runs as a
 * process.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ecbHistCsv, hmrcMonthXml } from '../support/independent-tax/rates.ts';
import {
  ecbHistZip,
  hmrcMonthXml as hmrcFixture,
  type RatesServer,
  startRatesServer,
} from '../support/rates.ts';

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `pbs-export` with `args` as a process, in `cwd`, to its exit. */
async function cli(args: readonly string[], cwd: string): Promise<Finished> {
  const child = spawn(process.execPath, [join(process.cwd(), 'bin', 'pbs-export.mjs'), ...args], {
    cwd,
    env: Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('PBS_'))),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr };
}

/** The published paths (lib/fx-store/fetch.ts: ECB_HIST_URL, HMRC_MONTHLY_URL). */
const ECB_PATH = '/stats/eurofxref/eurofxref-hist.zip';
const hmrcPath = (month: string) => `/api/v2/exchange_rates/files/monthly_xml_${month}.xml`;

let dir: string;
let server: RatesServer;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pbs-rates-command-'));
  server = await startRatesServer();
});
afterEach(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const urls = () => [
  '--ecb-url',
  `${server.url}${ECB_PATH}`,
  '--hmrc-url',
  `${server.url}${hmrcPath('{month}')}`,
];

describe('pbs-export rates (downloads)', () => {
  it("writes the ECB's eurofxref-hist.zip as published into rates/, and says how a run takes it", async () => {
    const zip = ecbHistZip('2025-12-31');
    server.files.set(ECB_PATH, zip);

    const result = await cli(['rates', '--source', 'ecb', ...urls()], dir);

    expect({ code: result.code, stderr: result.stderr, requested: server.requested }).toEqual({
      code: 0,
      stderr: '',
      requested: [ECB_PATH],
    });
    expect(Buffer.compare(await readFile(join(dir, 'rates', 'eurofxref-hist.zip')), zip)).toBe(0);
    expect(result.stdout).toMatch(
      /^rates\/eurofxref-hist\.zip: ECB rates 2022-12-01 to 2025-12-31, SHA-256 [0-9a-f]{64}\n/,
    );
    expect(result.stdout).toContain('--rates ecb:rates/eurofxref-hist.zip');
  });

  it("writes HMRC's monthly_xml file of each month from --from to --to into --dir", async () => {
    for (const [year, month] of [
      [2024, 4],
      [2024, 5],
      [2024, 6],
    ] as const) {
      server.files.set(hmrcPath(`${year}-0${month}`), hmrcFixture(year, month));
    }

    const result = await cli(
      ['rates', '--source', 'hmrc', '--from', '2024-04', '--to', '2024-06', '--dir', 'fx', ...urls()],
      dir,
    );

    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    expect(server.requested).toEqual(['2024-04', '2024-05', '2024-06'].map(hmrcPath));
    expect((await readdir(join(dir, 'fx'))).sort()).toEqual([
      'monthly_xml_2024-04.xml',
      'monthly_xml_2024-05.xml',
      'monthly_xml_2024-06.xml',
    ]);
    expect(await readFile(join(dir, 'fx', 'monthly_xml_2024-05.xml'), 'utf8')).toBe(hmrcFixture(2024, 5));
  });

  it('writes no file for a month not published or in no published layout, names each, exit 1, keeping the others', async () => {
    server.files.set(hmrcPath('2024-04'), hmrcFixture(2024, 4));
    server.files.set(hmrcPath('2024-05'), '<html><body>Service unavailable</body></html>');

    const result = await cli(
      ['rates', '--source', 'hmrc', '--from', '2024-04', '--to', '2024-06', ...urls()],
      dir,
    );

    expect({ code: result.code, files: await readdir(join(dir, 'rates')) }).toEqual({
      code: 1,
      files: ['monthly_xml_2024-04.xml'],
    });
    expect(result.stderr.trimEnd().split('\n')).toEqual([
      expect.stringMatching(/^error: monthly_xml_2024-05\.xml: is none of the published layouts/),
      `error: monthly_xml_2024-06.xml: not published at ${server.url}${hmrcPath('2024-06')} (HTTP 404)`,
    ]);
  });

  it('refuses a download without --source, or HMRC months without --from, exit 2 naming the flag', async () => {
    const noSource = await cli(['rates', ...urls()], dir);
    const noFrom = await cli(['rates', '--source', 'hmrc', ...urls()], dir);

    expect({ codes: [noSource.code, noFrom.code], requested: server.requested }).toEqual({
      codes: [2, 2],
      requested: [],
    });
    expect(noSource.stderr).toMatch(/^error: --source: is required: ecb .* or hmrc /);
    expect(noFrom.stderr).toMatch(/^error: --from: is required with --source hmrc/);
  });
});

describe('pbs-export rates --demo', () => {
  it("writes made-up files named DEMO-made-up_…, the rates the tax forms' cross-check uses, without a request", async () => {
    const result = await cli(['rates', '--demo'], dir);
    const names = await readdir(join(dir, 'rates'));

    expect({ code: result.code, requested: server.requested, files: names.length }).toEqual({
      code: 0,
      requested: [],
      files: 1 + 48,
    });
    expect(names.every((name) => name.startsWith('DEMO-made-up_'))).toBe(true);
    expect(await readFile(join(dir, 'rates', 'DEMO-made-up_eurofxref-hist.csv'), 'utf8')).toBe(
      ecbHistCsv('2022-01-01', '2025-12-31'),
    );
    expect(await readFile(join(dir, 'rates', 'DEMO-made-up_monthly_xml_2024-05.xml'), 'utf8')).toBe(
      hmrcMonthXml(2024, 5),
    );
    expect(result.stdout).toContain('DEMO: made-up rates');
  });

  it('gives the files a UK run of the demo converts its gains with, the DEMO names in its manifest', async () => {
    await cli(['rates', '--demo', '--source', 'hmrc', '--from', '2023-01', '--to', '2025-12'], dir);
    const files = (await readdir(join(dir, 'rates'))).sort().map((name) => join('rates', name));

    const run = await cli(
      [
        'run',
        '--simulator',
        '--period',
        '2024-04-06..2025-04-05',
        '--time-zone',
        'Europe/London',
        '--report',
        'gains',
        '--tax-rules',
        'uk',
        '--format',
        'csv',
        ...files.flatMap((file) => ['--rates', `hmrc:${file}`]),
        '--out',
        'out',
      ],
      dir,
    );

    expect(run.code, run.stderr).toBe(0);
    const manifests = (await readdir(join(dir, 'out'), { recursive: true })).filter((path) =>
      path.endsWith('manifest.json'),
    );
    const manifest = JSON.parse(await readFile(join(dir, 'out', manifests[0] as string), 'utf8'));
    expect(Object.keys(manifest.request.gains.rates.files)).toEqual(
      files.map((file) => file.slice('rates/'.length)),
    );
  });
});
