/**
 * The portal over real HTTP on loopback, as `npm run serve` serves it: the pages' security
 * headers, the views' sign-in, profiles outside the token's claim refused by the pages and by
 * the API alike, hostile names shown as text, the request form's errors beside their fields.
 */
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseExportRequest } from '../../lib/export/index.ts';
import { type JobRecord, KEYS } from '../../lib/jobs/index.ts';
import { type LocalService, startLocalService } from '../../lib/local/index.ts';
import { createProgressReader } from '../../lib/portal/index.ts';
import type { Notice } from '../../lib/workflow/index.ts';

let service: LocalService;
let demoToken: string;
const notices: Notice[] = [];
beforeAll(async () => {
  service = await startLocalService({ port: 0, onNotice: (notice) => notices.push(notice) });
  demoToken = await service.devToken(['demo']);
});
afterAll(async () => {
  await service.close();
});

const get = (path: string, token?: string) =>
  fetch(`${service.url}${path}`, token ? { headers: { authorization: `Bearer ${token}` } } : {});

function post(path: string, body: unknown, token?: string) {
  return fetch(`${service.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
}

/** The export request of the stored jobs (a month, CSV). */
const MONTH_REQUEST: JobRecord['request'] = parseExportRequest({
  profile: 'demo',
  period: '2024-01',
  timeZone: 'UTC',
  reports: ['transactions'],
  formats: ['csv'],
});

/** A succeeded job written straight into the store, as a finished export leaves it. */
async function storedJob(
  profile: string,
  fileName: string,
  id: string,
  extra: Partial<JobRecord> = {},
): Promise<JobRecord> {
  const at = new Date().toISOString();
  const job: JobRecord = {
    jobId: id,
    profile,
    request: { ...MONTH_REQUEST, profile },
    state: 'succeeded',
    source: 'schedule',
    idempotencyKey: `test:${id}`,
    createdAt: at,
    updatedAt: at,
    result: {
      runId: 'r1',
      prefix: `reports/${profile}/2024-01/r1`,
      files: [
        { name: fileName, key: `reports/${profile}/2024-01/r1/x.csv`, bytes: 1234, sha256: 'ab'.repeat(32) },
      ],
    },
    ...extra,
  };
  await service.jobs.create(job);
  return job;
}

describe('portal pages', () => {
  it('serves every page with a strict CSP, no inline script and no data', async () => {
    for (const path of [
      '/portal',
      '/portal/clients/demo',
      '/portal/clients/demo/request',
      '/portal/sign-in',
    ]) {
      const response = await get(path);
      expect(response.status, path).toBe(200);
      const csp = response.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).toContain("frame-ancestors 'none'");
      expect(response.headers.get('referrer-policy')).toBe('no-referrer');
      const html = await response.text();
      expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
      // Every script element has a src (none inline), and no element has an event handler attribute.
      const scripts = html.match(/<script\b[^>]*>/g) ?? [];
      expect(scripts).toEqual(['<script src="/portal/static/portal.js" defer="">']);
      expect(html).not.toMatch(/\son[a-z]+=/i);
      expect(html).not.toContain('style=');
    }
  });

  it('marks the local sign-in as the development sign-in', async () => {
    const html = await (await get('/portal/sign-in')).text();
    expect(html).toContain('Development sign-in');
    expect(html).toContain('value="demo"');
  });

  it('serves the script and the styles, and answers 404 for other files', async () => {
    const script = await get('/portal/static/portal.js');
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await script.text()).toContain('sessionStorage');
    expect((await get('/portal/static/portal.css')).status).toBe(200);
    expect((await get('/portal/static/..%2f..%2fpackage.json')).status).toBe(404);
  });
});

describe('portal views need a sign-in', () => {
  it('answers a view without a token 401, and any invalid token 401 as API Gateway does', async () => {
    expect((await get('/portal/view/clients')).status).toBe(401);
    const forged = `${demoToken.slice(0, -2)}xx`;
    const answer = await get('/portal/view/clients', forged);
    expect(answer.status).toBe(401);
    expect(await answer.json()).toEqual({ message: 'Unauthorized' });
  });

  it('refuses a development sign-in without profiles, naming the field', async () => {
    const answer = await post('/portal/dev-sign-in', { profiles: [] });
    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({ error: { field: 'profiles' } });
    expect((await post('/portal/dev-sign-in', { profiles: ['../x'] })).status).toBe(400);
  });
});

describe('a person never sees, downloads or requests for a profile outside the claim', () => {
  it('lists only the allowed clients', async () => {
    const html = await (await get('/portal/view/clients', demoToken)).text();
    expect(html).toContain('href="/portal/clients/demo"');
    expect(html).not.toContain('acme');
    expect(html).not.toContain('empty');
  });

  it('refuses the page of another client and its request form', async () => {
    const page = await get('/portal/view/clients/acme', demoToken);
    expect(page.status).toBe(403);
    expect(await page.text()).toContain('does not allow the client acme');
    expect((await get('/portal/view/clients/acme/request', demoToken)).status).toBe(403);
  });

  it('refuses a request for another client and starts nothing', async () => {
    const answer = await post(
      '/portal/view/clients/acme/request',
      { fields: { period: ['2025-10'], reports: ['transactions'], formats: ['csv'] } },
      demoToken,
    );
    expect(answer.status).toBe(403);
    expect(answer.headers.get('x-portal-location')).toBeNull();
    expect(await service.jobs.listByProfile('acme', 10)).toEqual([]);
  });

  it('refuses the API calls the page script would make for another client', async () => {
    const acmeJob = await storedJob('acme', 'acme-2024-01-transactions.csv', 'a'.repeat(32));
    expect((await get('/reports?profile=acme', demoToken)).status).toBe(403);
    // Download asks GET /reports/{jobId} for the link: another client's job is as good as missing.
    const download = await get(`/reports/${acmeJob.jobId}`, demoToken);
    expect(download.status).toBe(404);
    expect(await download.text()).not.toContain('X-Amz-Signature');
    const started = await post('/reports', { profile: 'acme', period: '2025-10' }, demoToken);
    expect(started.status).toBe(403);
    // The same job with a token that allows acme: the download link is there.
    const acmeToken = await service.devToken(['acme']);
    const allowed = (await (await get(`/reports/${acmeJob.jobId}`, acmeToken)).json()) as {
      files: { url: string }[];
    };
    expect(allowed.files[0]?.url).toContain('X-Amz-Signature');
  });
});

describe('hostile names are shown as text', () => {
  it('escapes a file name that holds markup', async () => {
    const hostile = '<img src=x onerror=alert(1)>"quoted"&.csv';
    const job = await storedJob('demo', `reports/demo/2024-01/r1/${hostile}`, 'b'.repeat(32));
    const html = await (await get('/portal/view/clients/demo', demoToken)).text();
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;&quot;quoted&quot;&amp;.csv');
    expect(html).not.toContain('<img');
    // The Download button carries the name as an attribute value, escaped too.
    expect(html).toContain(`data-job="${job.jobId}"`);
    expect(html).toContain(
      'data-file="reports/demo/2024-01/r1/&lt;img src=x onerror=alert(1)&gt;&quot;quoted&quot;&amp;.csv"',
    );
  });
});

describe('who started an export', () => {
  it('names the person who asked for an on-demand export, escaped, and the schedule for a monthly one', async () => {
    await storedJob('demo', 'monthly.csv', 'c'.repeat(32), {
      request: { ...MONTH_REQUEST, period: '2024-02' },
    });
    await storedJob('demo', 'asked.csv', 'd'.repeat(32), {
      source: 'api',
      requestedBy: '<b>eve</b>@example.com',
      request: { ...MONTH_REQUEST, period: '2024-03' },
    });
    const html = await (await get('/portal/view/clients/demo', demoToken)).text();
    expect(html).toContain('on demand by &lt;b&gt;eve&lt;/b&gt;@example.com');
    expect(html).not.toContain('<b>eve');
    expect(html).toContain('monthly schedule');
  });
});

describe('the request form', () => {
  it('shows each refusal of the export request schema beside its field', async () => {
    const answer = await post(
      '/portal/view/clients/demo/request',
      { fields: { period: ['2025-13'], timeZone: ['Mars/Olympus'], formats: ['csv'] } },
      demoToken,
    );
    expect(answer.status).toBe(400);
    const html = await answer.text();
    expect(html).toMatch(
      /<input id="f-period" name="period" type="text" value="2025-13" aria-invalid="true" aria-describedby="e-period"\/><p id="e-period" class="error">month 13 does not exist<\/p>/,
    );
    expect(html).toMatch(/id="e-timeZone" class="error">expected an IANA time zone/);
    expect(html).toMatch(/id="e-reports" class="error">must name at least one report/);
    expect(html).not.toMatch(/id="e-formats"/);
  });

  it('starts the export through the API and sends the person to the client page', async () => {
    const answer = await post(
      '/portal/view/clients/demo/request',
      { fields: { period: ['2025-09'], reports: ['transactions'], formats: ['csv'], timeZone: [''] } },
      demoToken,
    );
    expect(answer.status).toBe(200);
    const location = answer.headers.get('x-portal-location') ?? '';
    const jobId = /#job-([0-9a-f]{32})$/.exec(location)?.[1];
    expect(location.startsWith('/portal/clients/demo#job-')).toBe(true);
    const job = await service.jobs.get(jobId ?? '');
    expect(job?.request).toMatchObject({
      profile: 'demo',
      period: '2025-09',
      timeZone: 'UTC',
      formats: ['csv'],
    });
    // The development sign-in's token names its holder `developer` (its `sub`).
    expect(job?.requestedBy).toBe('developer');
    await service.starter.idle();
    const page = await (await get('/portal/view/clients/demo', demoToken)).text();
    expect(page).toContain('on demand by developer');
  });
});

describe('progress of a running export', () => {
  it('counts the fetched parts against the plan', async () => {
    const s3 = new S3Client({
      region: 'us-east-1',
      endpoint: service.s3Endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
    const jobId = 'c'.repeat(32);
    const read = createProgressReader(s3, service.bucket);
    expect(await read(jobId)).toBeNull();
    const shards = [0, 1, 2].map((n) => ({ id: `s${n}`, window: 0, protocol: null }));
    const put = (Key: string, Body: string) =>
      s3.send(new PutObjectCommand({ Bucket: service.bucket, Key, Body }));
    await put(
      KEYS.plan(jobId),
      JSON.stringify({ jobId, startedAt: '2025-01-01T00:00:00Z', plan: { windows: [], shards } }),
    );
    await put(KEYS.part(jobId, 0), 'x');
    await put(KEYS.part(jobId, 2), 'x');
    expect(await read(jobId)).toEqual({ done: 2, total: 3, windowsDone: 0, windows: 0, unit: 'window' });
    s3.destroy();
  });
});

describe('a portal that guides', () => {
  let acmeToken: string;
  beforeAll(async () => {
    acmeToken = await service.devToken(['acme']);
  });

  it('serves an icon at the site root and links it from every page', async () => {
    const icon = await get('/favicon.ico');
    const page = await (await get('/portal/sign-in')).text();
    const linked = /<link rel="icon" type="image\/svg\+xml" href="([^"]+)"/.exec(page)?.[1] ?? '';

    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
    expect(await icon.text()).toContain('<svg');
    expect((await get(linked)).status).toBe(200);
  });

  it('says in words why an export failed, the recorded reason folded away', async () => {
    const reason = 'ValidationError: protocols: unknown protocol "Nope"; valid: Aave, Uniswap';
    await storedJob('acme', 'x.csv', '1'.repeat(32), { state: 'failed', reason, result: undefined });

    const html = await (await get('/portal/view/clients/acme', acmeToken)).text();
    const shown = /<span class="reason">([^<]*)<\/span>/.exec(html)?.[1] ?? '';

    expect(shown).toMatch(/^The export request could not be carried out: protocols — unknown protocol/);
    expect(shown).toContain('Change it and request the export again.');
    expect(shown).not.toContain('ValidationError');
    expect(html).toMatch(
      /<details><summary>Technical detail<\/summary><code class="detail">ValidationError: /,
    );
  });

  it('lists the workbook first and says in one line what each file holds', async () => {
    const job = await storedJob('acme', 'unused.csv', '2'.repeat(32), {
      request: { ...MONTH_REQUEST, profile: 'acme', period: '2024-05' },
      result: {
        runId: 'r2',
        prefix: 'reports/acme/2024-05/r2',
        files: ['acme_2024-05_transactions.csv', 'manifest.json', 'README.txt', 'acme_2024-05.xlsx'].map(
          (name) => ({
            name: `reports/acme/2024-05/r2/${name}`,
            key: `k/${name}`,
            bytes: 10,
            sha256: 'cd'.repeat(32),
          }),
        ),
      },
    });

    const html = await (await get('/portal/view/clients/acme', acmeToken)).text();
    const set = html.slice(html.indexOf(`id="set-${job.jobId}"`));
    const rows = [
      ...set.matchAll(/<th scope="row" class="file-name">(.*?)<\/th><td class="file-desc">([^<]*)<\/td>/g),
    ]
      .slice(0, 4)
      .map((match) => [(match[1] ?? '').replace(/<wbr\/>/g, ''), match[2]]);

    expect(rows.map(([name]) => name)).toEqual([
      'acme_2024-05.xlsx',
      'README.txt',
      'acme_2024-05_transactions.csv',
      'manifest.json',
    ]);
    expect(rows.every(([, description]) => (description ?? '').length > 10)).toBe(true);
    expect(rows[0]?.[1]).toContain('workbook');
    expect(rows[2]?.[1]).toContain('transaction');
  });

  it('offers "Download all (zip)" above the file list of a set, calling the API the other client cannot', async () => {
    const job = await storedJob('acme', 'zipped.csv', '5'.repeat(32), {
      request: { ...MONTH_REQUEST, profile: 'acme', period: '2024-06' },
    });

    const html = await (await get('/portal/view/clients/acme', acmeToken)).text();
    const set = html.slice(html.indexOf(`id="set-${job.jobId}"`));
    const button = set.match(/<button[^>]*data-download-all[^>]*>([^<]*)<\/button>/);
    expect(button?.[0]).toContain(`data-job="${job.jobId}"`);
    expect(button?.[1]).toBe('Download all (zip)');
    expect(set.indexOf('data-download-all')).toBeLessThan(set.indexOf('<table'));
    // The button's script asks POST /reports/{jobId}/archive for the zip's link.
    const script = await (await get('/portal/static/portal.js')).text();
    expect(script).toContain("closest('button[data-download-all]')");
    expect(script).toContain('/archive`');
    expect(script).toContain("call(url, { method: 'POST' })");
    const refused = await fetch(`${service.url}/reports/${job.jobId}/archive`, {
      method: 'POST',
      headers: { authorization: `Bearer ${demoToken}` },
    });
    expect(refused.status).toBe(404);
  });

  it('lets a file name wrap only after "_", "-" and "."', async () => {
    const html = await (await get('/portal/view/clients/acme', acmeToken)).text();

    expect(html).toContain('acme_<wbr/>2024-<wbr/>05_<wbr/>transactions.<wbr/>csv');
  });

  it('shows the progress of a running export in months fetched, not shards', async () => {
    const jobId = '3'.repeat(32);
    await storedJob('acme', 'x.csv', jobId, { state: 'running', result: undefined });
    const windows = ['2025-01', '2025-02'].map((label, index) => ({ index, label, start: '', end: '' }));
    const shards = [0, 0, 1].map((window, n) => ({ id: `s${n}`, window, protocol: null }));
    const s3 = new S3Client({
      region: 'us-east-1',
      endpoint: service.s3Endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
    const put = (Key: string, Body: string) =>
      s3.send(new PutObjectCommand({ Bucket: service.bucket, Key, Body }));
    await put(
      KEYS.plan(jobId),
      JSON.stringify({ jobId, startedAt: '2025-01-01T00:00:00Z', plan: { windows, shards } }),
    );
    // Both shards of January, none of February.
    await put(KEYS.part(jobId, 0), 'x');
    await put(KEYS.part(jobId, 1), 'x');
    s3.destroy();

    const html = await (await get('/portal/view/clients/acme', acmeToken)).text();

    expect(html).toContain('1 of 2 months fetched');
    expect(html).not.toContain('shards');
  });

  it('offers the CSV dialect in the request form and passes it to the export request', async () => {
    const form = await (await get('/portal/view/clients/acme/request', acmeToken)).text();
    const answer = await post(
      '/portal/view/clients/acme/request',
      { fields: { period: ['2024-07'], reports: ['transactions'], formats: ['csv'], csv: ['semicolon'] } },
      acmeToken,
    );
    const jobId = /#job-([0-9a-f]{32})$/.exec(answer.headers.get('x-portal-location') ?? '')?.[1];

    expect(form).toMatch(/<select id="f-csv" name="csv">/);
    expect(form).toContain('Semicolon and decimal comma');
    expect((await service.jobs.get(jobId ?? ''))?.request.csv).toEqual({
      delimiter: ';',
      decimalSeparator: ',',
    });
  });
});
