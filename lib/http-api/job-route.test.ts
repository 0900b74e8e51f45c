import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { JobRecord } from '../jobs/index.ts';
import { type JobRouteContext, succeededJob } from './job-route.ts';

const HERE = join(import.meta.dirname);

/** The API's modules (tests left out) whose text matches `pattern`. */
async function modulesMatching(pattern: RegExp): Promise<string[]> {
  const names = (await readdir(HERE)).filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'));
  const found: string[] = [];
  for (const name of names) if (pattern.test(await readFile(join(HERE, name), 'utf8'))) found.push(name);
  return found.sort();
}

describe('the routes on one job share one lookup and one error answer', () => {
  it('answers job_not_found and job_not_finished in job-route.ts only', async () => {
    expect(await modulesMatching(/'job_not_found'|'job_not_finished'/)).toEqual(['job-route.ts']);
  });

  it("declares the OpenAPI error answer ('error: code, message, field, issues') in answers.ts only", async () => {
    expect(await modulesMatching(/error: code, message, field, issues/)).toEqual(['answers.ts']);
  });
});

describe('succeededJob', () => {
  const job = (profile: string, state: JobRecord['state']) =>
    ({
      jobId: 'j1',
      profile,
      state,
      ...(state === 'succeeded' ? { result: { prefix: 'reports/p/2025', files: [] } } : {}),
    }) as unknown as JobRecord;
  const ctx: JobRouteContext = {
    mayUseProfile: (c, profile) => c.req.header('x-profile') === profile,
    headers: { 'x-test': '1' },
    apiError: (code, message, field = null) => ({ error: { code, message, field, issues: [] } }),
  };
  const app = (stored: JobRecord | null) =>
    new Hono().get('/:id', async (c) => {
      const found = await succeededJob(c, { get: async () => stored }, ctx, c.req.param('id'));
      return found.answer ?? c.json({ prefix: found.job.result.prefix });
    });
  const ask = async (stored: JobRecord | null, profile: string) => {
    const answer = await app(stored).request('/j1', { headers: { 'x-profile': profile } });
    return {
      status: answer.status,
      header: answer.headers.get('x-test'),
      body: (await answer.json()) as { error: { code: string; message: string } },
    };
  };

  it("answers another profile's job exactly as a missing one (404 naming jobId)", async () => {
    const missing = await ask(null, 'a');
    expect(missing).toEqual({
      status: 404,
      header: '1',
      body: {
        error: { code: 'job_not_found', message: 'job j1 does not exist', field: 'jobId', issues: [] },
      },
    });
    expect(await ask(job('b', 'succeeded'), 'a')).toEqual(missing);
  });

  it('answers 409 job_not_finished for a job without its set, and the job once it succeeded', async () => {
    const running = await ask(job('a', 'running'), 'a');
    expect([running.status, running.body.error.code, running.body.error.message]).toEqual([
      409,
      'job_not_finished',
      'job j1 has no files yet (it is running)',
    ]);
    expect(await ask(job('a', 'succeeded'), 'a')).toMatchObject({
      status: 200,
      body: { prefix: 'reports/p/2025' },
    });
  });
});
