/**
 * The request form's filing currency and rates source over real HTTP on loopback, as
 * `npm run serve` serves them: serve keeps the DEMO made-up rates files in its bucket, the API
 * lists them (`GET /rates`), the form offers them marked DEMO, and a UK request from the form
 * converts with them, its reports saying the rates are DEMO ones.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalService, startLocalService } from '../../lib/local/index.ts';

let service: LocalService;
let demoToken: string;
beforeAll(async () => {
  service = await startLocalService({ port: 0 });
  demoToken = await service.devToken(['demo']);
});
afterAll(async () => {
  await service.close();
});

const authorized = () => ({ authorization: `Bearer ${demoToken}`, 'content-type': 'application/json' });

const postForm = (fields: Record<string, string[]>) =>
  fetch(`${service.url}/portal/view/clients/demo/request`, {
    method: 'POST',
    headers: authorized(),
    body: JSON.stringify({ fields }),
  });

describe('rates on npm run serve', () => {
  it('keeps the DEMO made-up ECB and HMRC rates files and lists both sources as DEMO (GET /rates)', async () => {
    const answer = await fetch(`${service.url}/rates`, { headers: authorized() });
    const body = (await answer.json()) as { sources: { source: string; files: number; demo: boolean }[] };

    expect(answer.status).toBe(200);
    expect(body.sources.map(({ source, files, demo }) => ({ source, files, demo }))).toEqual([
      { source: 'ecb', files: 1, demo: true },
      { source: 'hmrc', files: 48, demo: true },
    ]);
  });

  it('offers the kept rates sources marked DEMO and a filing currency in the request form', async () => {
    const html = await (
      await fetch(`${service.url}/portal/view/clients/demo/request`, { headers: authorized() })
    ).text();

    const select = /<select id="f-gains-rates-source" name="gains.rates.source">(.*?)<\/select>/s.exec(
      html,
    )?.[1];
    expect(select).toContain('<option value="">no conversion');
    expect(select).toMatch(/<option value="ecb">ECB [^<]*: 1 file kept\. DEMO made-up rates, not for filing/);
    expect(select).toMatch(
      /<option value="hmrc">HMRC [^<]*: 48 files kept\. DEMO made-up rates, not for filing/,
    );
    expect(html).toMatch(/<input id="f-gains-currency" name="gains.currency" type="text"/);
  });

  it('runs a UK request from the form at the DEMO HMRC rates, its Read me and tax pack saying DEMO rates', async () => {
    const answer = await postForm({
      period: ['2024-05'],
      timeZone: ['Europe/London'],
      reports: ['gains'],
      formats: ['csv', 'xlsx'],
      'gains.taxRules': ['uk'],
      'gains.currency': ['GBP'],
      'gains.rates.source': ['hmrc'],
    });
    const jobId = /#job-([0-9a-f]{32})$/.exec(answer.headers.get('x-portal-location') ?? '')?.[1] ?? '';
    await service.starter.idle();

    const job = (await (
      await fetch(`${service.url}/reports/${jobId}`, { headers: authorized() })
    ).json()) as {
      state: string;
      reason?: string;
      files: { name: string; url: string }[];
    };
    expect(job.state, job.reason).toBe('succeeded');
    const text = async (name: string) =>
      (await fetch(job.files.find((file) => file.name === name)?.url ?? '')).text();
    const readme = (await text('README.txt')).split('\n');
    const attention = readme.slice(readme.findIndex((line) => line.startsWith('Needs attention')));
    expect(attention.slice(0, 3).join('\n')).toMatch(
      /the exchange rates are DEMO rates, made up .* not for filing/,
    );
    const manifest = JSON.parse(await text('manifest.json')) as {
      request: { gains: { currency: string; rates: { source: string; files: Record<string, string> } } };
    };
    expect(manifest.request.gains.currency).toBe('GBP');
    expect(manifest.request.gains.rates.source).toBe('hmrc');
    expect(Object.keys(manifest.request.gains.rates.files)).toContain('DEMO-made-up_monthly_xml_2024-05.xml');
    const pack = job.files.find((file) => file.name.endsWith('_tax_pack.pdf'));
    const dir = mkdtempSync(join(tmpdir(), 'pbs-rates-pack-'));
    try {
      writeFileSync(join(dir, 'pack.pdf'), Buffer.from(await (await fetch(pack?.url ?? '')).arrayBuffer()));
      const pdfText = execFileSync('pdftotext', [join(dir, 'pack.pdf'), '-'], { encoding: 'utf8' });
      expect(pdfText.replace(/\s+/g, ' ')).toMatch(
        /Note: the exchange rates are DEMO rates, made up .* not for filing/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('shows a rates source the request cannot use beside the rates field', async () => {
    const answer = await postForm({
      period: ['2024-05'],
      reports: ['gains'],
      formats: ['csv'],
      'gains.rates.source': ['ecb'],
    });
    const html = await answer.text();

    expect(answer.status).toBe(400);
    expect(html).toMatch(
      /<select id="f-gains-rates-source" name="gains.rates.source" aria-invalid="true" aria-describedby="e-gains-rates-source">/,
    );
    expect(html).toMatch(/<p id="e-gains-rates-source" class="error">needs gains.currency/);
  });
});
