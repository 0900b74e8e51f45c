/**
 * Every job of a profile stays reachable, however many there are: `GET /reports` pages with
 * `nextCursor`/`cursor`, and the portal's client page links to older report sets, over real HTTP
 * on `npm run serve`'s stack. The jobs (130 monthly sets, more than one page of the API's
 * largest `limit`) are written straight into its job store, as finished exports leave them.
 */
import pLimit from 'p-limit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseExportRequest } from '../../lib/export/index.ts';
import type { JobRecord } from '../../lib/jobs/index.ts';
import { type LocalService, startLocalService } from '../../lib/local/index.ts';

const PROFILE = 'empty';
const COUNT = 130;

let service: LocalService;
let token: string;
/** The stored jobs' ids, newest first (independent of the listing: by construction). */
let newestFirst: string[];

/** A succeeded monthly job of month `index` (0: January 2015), created an hour after the one before. */
function monthlyJob(index: number): JobRecord {
  const month = `${2015 + Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}`;
  const at = new Date(Date.UTC(2026, 0, 1) + index * 3_600_000).toISOString();
  const jobId = index.toString(16).padStart(32, 'a');
  return {
    jobId,
    profile: PROFILE,
    request: parseExportRequest({
      profile: PROFILE,
      period: month,
      reports: ['transactions'],
      formats: ['csv'],
    }),
    state: 'succeeded',
    source: 'schedule',
    idempotencyKey: `test:${jobId}`,
    createdAt: at,
    updatedAt: at,
    result: {
      runId: `r${index}`,
      prefix: `reports/${PROFILE}/${month}/r${index}`,
      files: [
        {
          name: `${month}.csv`,
          key: `reports/${PROFILE}/${month}/r${index}/x.csv`,
          bytes: 1,
          sha256: 'ab'.repeat(32),
        },
      ],
    },
  };
}

beforeAll(async () => {
  service = await startLocalService({ port: 0 });
  token = await service.devToken([PROFILE]);
  const jobs = Array.from({ length: COUNT }, (_, index) => monthlyJob(index));
  const writes = pLimit(8);
  await Promise.all(jobs.map((job) => writes(() => service.jobs.create(job))));
  newestFirst = jobs.map((job) => job.jobId).reverse();
}, 120_000);
afterAll(async () => {
  await service.close();
});

interface ListAnswer {
  jobs: { jobId: string }[];
  nextCursor?: string;
}

async function list(query: Record<string, string>): Promise<{ status: number; body: ListAnswer }> {
  const response = await fetch(
    `${service.url}/reports?${new URLSearchParams({ profile: PROFILE, ...query })}`,
  );
  return { status: response.status, body: (await response.json()) as ListAnswer };
}

describe('GET /reports pages through every job', () => {
  it('reaches all 130 jobs, newest first, each once, following nextCursor with the largest limit', async () => {
    const seen: string[] = [];
    const pageSizes: number[] = [];
    let cursor: string | undefined;
    do {
      const { status, body } = await list({ limit: '100', ...(cursor !== undefined ? { cursor } : {}) });
      expect(status).toBe(200);
      seen.push(...body.jobs.map((job) => job.jobId));
      pageSizes.push(body.jobs.length);
      cursor = body.nextCursor;
    } while (cursor !== undefined);

    expect(pageSizes).toEqual([100, 30]);
    expect(seen).toEqual(newestFirst);
  });

  it('ends a listing that fills its last page exactly without a cursor', async () => {
    const first = await list({ limit: '65' });
    const second = await list({ limit: '65', cursor: String(first.body.nextCursor) });

    expect(first.body.jobs).toHaveLength(65);
    expect(second.body.jobs.map((job) => job.jobId)).toEqual(newestFirst.slice(65));
    expect(second.body.nextCursor).toBeUndefined();
  });

  it('answers 400 naming cursor to a cursor no page handed out', async () => {
    const response = await fetch(`${service.url}/reports?profile=${PROFILE}&cursor=not-a-cursor`);
    const body = (await response.json()) as { error: { field: string } };

    expect(response.status).toBe(400);
    expect(body.error.field).toBe('cursor');
  });
});

describe('the portal pages through every report set', () => {
  it('links from the newest sets to older ones until all 130 sets were shown', async () => {
    const shown: string[] = [];
    let view: string | undefined = `/portal/view/clients/${PROFILE}`;
    while (view !== undefined) {
      const response = await fetch(`${service.url}${view}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(response.status).toBe(200);
      const html = await response.text();
      shown.push(...[...html.matchAll(/<article id="set-([0-9a-f]{32})"/g)].map((match) => match[1] ?? ''));
      // The page's "Older report sets" link, loaded as its view (what the page script does).
      const older =
        /<a href="\/portal\/clients\/empty\?older=([^"]+)" rel="next">Older report sets<\/a>/.exec(html);
      view = older ? `/portal/view/clients/${PROFILE}?older=${older[1]}` : undefined;
    }

    // The sets are shown by period, newest first, which is the order they were made in here.
    expect(shown).toEqual(newestFirst);
  });

  it('loads an older page as the shell of its link', async () => {
    const { body } = await list({ limit: '30' });
    const older = encodeURIComponent(String(body.nextCursor));

    const shell = await (await fetch(`${service.url}/portal/clients/${PROFILE}?older=${older}`)).text();

    expect(shell).toContain(`data-view="/portal/view/clients/${PROFILE}?older=${older}"`);
  });
});

describe('the Clients view finds the latest set past a page of failures', () => {
  it("shows a client's latest set when its 25 newest exports failed", async () => {
    const base = Date.UTC(2026, 1, 1);
    const record = (index: number, state: 'succeeded' | 'failed'): JobRecord => ({
      ...monthlyJob(index),
      jobId: `b${index.toString(16).padStart(31, '0')}`,
      profile: 'acme',
      request: parseExportRequest({
        profile: 'acme',
        period: '2020-06',
        reports: ['transactions'],
        formats: ['csv'],
      }),
      state,
      createdAt: new Date(base + index * 60_000).toISOString(),
      updatedAt: new Date(base + index * 60_000).toISOString(),
      ...(state === 'failed' ? { result: undefined, reason: 'PbsNetworkError: connection reset' } : {}),
    });
    await service.jobs.create(record(0, 'succeeded'));
    for (let index = 1; index <= 25; index += 1) await service.jobs.create(record(index, 'failed'));
    const acmeToken = await service.devToken(['acme']);

    const html = await (
      await fetch(`${service.url}/portal/view/clients`, { headers: { authorization: `Bearer ${acmeToken}` } })
    ).text();

    expect(html).toMatch(/<a href="\/portal\/clients\/acme#set-b0+">2020-06, monthly schedule/);
  });
});
