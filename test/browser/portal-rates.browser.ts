/**
 * UK and German gains of the demo from the portal on `npm run serve`, in a real browser (Debian's
 * chromium, driven by playwright-core): the request form's filing currency and rates source pick
 * the DEMO made-up rates serve keeps, the exports succeed, and their figures (the tax summary's
 * SA108 and Anlage SO lines, the gains summary, every disposal and every conversion) are the CLI's
 * run as a process on the same demo data with the same rates files, read out of serve's bucket.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { parse } from 'csv-parse/sync';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalService, startLocalService } from '../../lib/local/index.ts';
import { createS3Client } from '../../lib/storage/index.ts';
import { type Browser, openBrowser, signIn } from '../support/portal.ts';

/** The files whose figures must be the CLI's (suffixes of the set's CSVs). */
const FIGURES = ['tax_summary', 'gains_summary_exact', 'disposals_exact', 'fx_conversions_exact'];

let service: LocalService;
let browser: Browser | undefined;
let page: Page;
let dir: string;
/** The rates files serve keeps, as written to `dir/rates`: source → paths. */
let ratesFiles: Record<'ecb' | 'hmrc', string[]>;

beforeAll(async () => {
  service = await startLocalService({ port: 0 });
  dir = await mkdtemp(join(tmpdir(), 'pbs-portal-rates-'));
  ratesFiles = await keptRatesFiles(service, join(dir, 'rates'));
  browser = await openBrowser({ acceptDownloads: true });
  page = browser.page;
  await signIn(page, service.url);
});

afterAll(async () => {
  await browser?.close();
  await service?.close();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

/** Every rates file serve's bucket keeps under `rates/`, written to `into` by its kept name. */
async function keptRatesFiles(local: LocalService, into: string): Promise<Record<'ecb' | 'hmrc', string[]>> {
  const s3: S3Client = await createS3Client({
    region: 'us-east-1',
    endpoint: local.s3Endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  await mkdir(into, { recursive: true });
  const listed = await s3.send(new ListObjectsV2Command({ Bucket: local.bucket, Prefix: 'rates/' }));
  const files: Record<'ecb' | 'hmrc', string[]> = { ecb: [], hmrc: [] };
  for (const { Key } of listed.Contents ?? []) {
    const [, source, , name] = (Key ?? '').split('/') as [string, 'ecb' | 'hmrc', string, string];
    const object = await s3.send(new GetObjectCommand({ Bucket: local.bucket, Key }));
    const path = join(into, name);
    await writeFile(
      path,
      await (object.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray(),
    );
    files[source].push(path);
  }
  s3.destroy();
  return files;
}

/** Runs `pbs-export run` as a process on the embedded simulator; resolves with its run folder. */
async function cliRun(out: string, args: readonly string[]): Promise<string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !name.startsWith('AWS_') && !name.startsWith('PBS_')) env[name] = value;
  }
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'bin/pbs-export.ts',
      'run',
      '--simulator',
      '--profile',
      'demo',
      ...args,
      '--out',
      out,
    ],
    { env: { ...env, HOME: dir, AWS_EC2_METADATA_DISABLED: 'true' }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`pbs-export exited ${code}: ${stderr}`);
  const periods = join(out, 'reports/demo');
  const [period] = await readdir(periods);
  const runs = join(periods, period as string);
  const [run] = (await readdir(runs)).filter((name) => !name.startsWith('.'));
  return join(runs, run as string);
}

/** What the form is filled with. */
interface FormInput {
  period?: string;
  from?: string;
  to?: string;
  timeZone: string;
  taxRules: string;
  currency: string;
  rates: string;
}

/** Fills the request form as a person does (gains only, CSV only) and submits it: the job's id. */
async function requestFromPortal(input: FormInput): Promise<string> {
  await page.goto(`${service.url}/portal/clients/demo/request`);
  const form = page.locator('form[data-submit]');
  await form.waitFor();
  if (input.period !== undefined) await page.getByLabel('Month or year').fill(input.period);
  if (input.from !== undefined) await page.getByLabel('From (day)').fill(input.from);
  if (input.to !== undefined) await page.getByLabel('To (day, included)').fill(input.to);
  await page.getByLabel('Time zone').fill(input.timeZone);
  for (const report of ['transactions', 'movements', 'summary']) {
    await form.locator(`input[name="reports"][value="${report}"]`).uncheck();
  }
  await form.locator('input[name="reports"][value="gains"]').check();
  await form.locator('input[name="formats"][value="xlsx"]').uncheck();
  await page.getByLabel('Tax rules').selectOption(input.taxRules);
  const rates = page.getByLabel('Convert values at the rates of');
  // The option offered is the kept source, marked DEMO.
  expect(await rates.locator(`option[value="${input.rates}"]`).textContent()).toMatch(/DEMO made-up rates/);
  await rates.selectOption(input.rates);
  await page.getByLabel('Filing currency').fill(input.currency);
  await page.getByRole('button', { name: 'Request the export' }).click();
  await page.waitForURL(/\/portal\/clients\/demo#job-[0-9a-f]{32}$/);
  return /#job-([0-9a-f]{32})$/.exec(page.url())?.[1] as string;
}

/** Downloads the set's file ending in `suffix` with its button: its bytes. */
async function download(jobId: string, suffix: string): Promise<Buffer> {
  const [file] = await Promise.all([
    page.waitForEvent('download'),
    page.locator(`#set-${jobId} button[data-download][data-file$="${suffix}"]`).click(),
  ]);
  return readFile((await file.path()) ?? '');
}

/** The set of `jobId` once listed on the client page (it refreshes itself while the export runs). */
async function finishedSet(jobId: string): Promise<void> {
  await page.goto(`${service.url}/portal/clients/demo`);
  await page.locator(`#set-${jobId}`).waitFor({ timeout: 280_000 });
}

const records = (bytes: Buffer) => parse(bytes, { bom: true, columns: true }) as Record<string, string>[];
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** The portal's set and the CLI's run: the same figures, converted with the same rates files. */
async function expectCliFigures(jobId: string, cliFolder: string): Promise<void> {
  const cliFiles = await readdir(cliFolder);
  for (const figures of FIGURES) {
    const name = cliFiles.find((file) => file.endsWith(`_${figures}.csv`)) as string;
    expect(name, figures).toBeDefined();
    const portal = await download(jobId, `_${figures}.csv`);
    const cli = await readFile(join(cliFolder, name));
    expect(records(portal).length, name).toBeGreaterThan(0);
    expect(records(portal), name).toEqual(records(cli));
    expect(sha256(portal), name).toBe(sha256(cli));
  }
  const manifest = JSON.parse((await download(jobId, 'manifest.json')).toString('utf8'));
  const cliManifest = JSON.parse(await readFile(join(cliFolder, 'manifest.json'), 'utf8'));
  expect(manifest.request.gains.rates).toEqual(cliManifest.request.gains.rates);
}

describe('UK and German gains of the demo from the portal on serve', () => {
  it('runs a UK 2024/25 request at the DEMO HMRC rates with the figures of the CLI given the same files', async () => {
    const cli = cliRun(join(dir, 'cli-uk'), [
      ...['--period', '2024-04-06..2025-04-05', '--time-zone', 'Europe/London'],
      ...['--report', 'gains', '--tax-rules', 'uk', '--format', 'csv'],
      ...ratesFiles.hmrc.flatMap((file) => ['--rates', `hmrc:${file}`]),
    ]);
    cli.catch(() => undefined);
    const jobId = await requestFromPortal({
      from: '2024-04-06',
      to: '2025-04-05',
      timeZone: 'Europe/London',
      taxRules: 'uk',
      currency: 'GBP',
      rates: 'hmrc',
    });
    await finishedSet(jobId);

    const summary = records(await download(jobId, '_tax_summary.csv'));
    expect(summary.find((row) => row.form_line === 'SA108 box 13.2')).toMatchObject({ currency: 'GBP' });
    await expectCliFigures(jobId, await cli);
  }, 300_000);

  it('runs a DE 2024 request at the DEMO ECB rates with the figures of the CLI given the same file', async () => {
    const cli = cliRun(join(dir, 'cli-de'), [
      ...['--period', '2024', '--time-zone', 'Europe/Berlin'],
      ...['--report', 'gains', '--tax-rules', 'de', '--format', 'csv'],
      ...ratesFiles.ecb.flatMap((file) => ['--rates', `ecb:${file}`]),
    ]);
    cli.catch(() => undefined);
    const jobId = await requestFromPortal({
      period: '2024',
      timeZone: 'Europe/Berlin',
      taxRules: 'de',
      currency: 'EUR',
      rates: 'ecb',
    });
    await finishedSet(jobId);

    const summary = records(await download(jobId, '_tax_summary.csv'));
    expect(summary.some((row) => row.form_line === 'Anlage SO Zeile 44' && row.currency === 'EUR')).toBe(
      true,
    );
    await expectCliFigures(jobId, await cli);
  }, 300_000);
});
