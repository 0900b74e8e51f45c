/**
 * `npm run serve` as a user meets it: the stack `bin/serve.ts` starts (`startLocalService`), called
 * over real HTTP on loopback with the README's requests.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalService, startLocalService } from '../../lib/local/index.ts';

let service: LocalService;
const done: string[] = [];
beforeAll(async () => {
  service = await startLocalService({ port: 0, onDone: (jobId) => done.push(jobId) });
});
afterAll(async () => {
  await service.close();
});

interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, unknown> & { error?: { code: string; field: string; message: string } };
}

async function answer(response: Response): Promise<Answer> {
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Answer['body'],
  };
}

/** `curl -X POST $URL/reports -H 'content-type: application/json' -d '…'`, plus `headers`. */
async function post(body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  return answer(
    await fetch(`${service.url}/reports`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    }),
  );
}

async function getJob(jobId: unknown): Promise<Answer> {
  return answer(await fetch(`${service.url}/reports/${String(jobId)}`));
}

/** The JSON body of an answer; `{}` for anything else (a page). */
function jsonOrNothing(text: string): Answer['body'] {
  try {
    return JSON.parse(text) as Answer['body'];
  } catch {
    return {};
  }
}

/** A POST with raw bytes and raw headers (fetch would not send a forged Host header). */
function rawPost(bytes: Buffer, headers: Record<string, string>): Promise<Answer> {
  return rawRequest('POST', '/reports', headers, bytes);
}

/** A request with raw headers to the server on loopback (fetch would not send a forged Host header). */
function rawRequest(
  method: string,
  path: string,
  headers: Record<string, string>,
  bytes?: Buffer,
): Promise<Answer> {
  const url = new URL(`${service.url}${path}`);
  return new Promise((resolve, reject) => {
    const sent = httpRequest(
      { host: url.hostname, port: url.port, path: `${url.pathname}${url.search}`, method, headers },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const responseHeaders = new Headers();
          for (const [name, value] of Object.entries(response.headers)) {
            if (typeof value === 'string') responseHeaders.set(name, value);
          }
          resolve({
            status: response.statusCode ?? 0,
            headers: responseHeaders,
            body: jsonOrNothing(Buffer.concat(chunks).toString('utf8')),
          });
        });
      },
    );
    sent.on('error', reject);
    sent.end(bytes ?? Buffer.alloc(0));
  });
}

describe('npm run serve: jobs are never lost', () => {
  it('answers a repeat of a finished POST /reports with 200 and the succeeded job, which stays succeeded', async () => {
    const request = { profile: 'demo', period: '2025-10', formats: ['csv'] };
    const first = await post(request);
    await service.starter.idle();

    const repeat = await post(request);
    await service.starter.idle();
    const job = await getJob(first.body.jobId);

    expect(first.status).toBe(202);
    expect(repeat).toMatchObject({ status: 200, body: { jobId: first.body.jobId, state: 'succeeded' } });
    expect(job.body).toMatchObject({
      state: 'succeeded',
      files: expect.arrayContaining([expect.anything()]),
    });
  });

  it('answers 422 naming Idempotency-Key to a key reused with another body, leaving the job as it was', async () => {
    const key = { 'Idempotency-Key': 'serve-key-1' };
    const first = await post({ profile: 'acme', period: '2025-11', formats: ['csv'] }, key);
    await service.starter.idle();
    const before = await service.jobs.get(String(first.body.jobId));

    const reused = await post({ profile: 'acme', period: '2025-12', formats: ['csv'] }, key);
    await service.starter.idle();

    expect(reused.status).toBe(422);
    expect(reused.body.error).toMatchObject({ code: 'idempotency_key_reused', field: 'Idempotency-Key' });
    expect(await service.jobs.get(String(first.body.jobId))).toEqual(before);
    expect(before?.state).toBe('succeeded');
  });
});

describe('npm run serve: as strict as the deployed API', () => {
  it('answers 415 naming Content-Type to a text/plain body, creating no job', async () => {
    const body = JSON.stringify({ profile: 'demo', period: '2024-03' });

    const refused = await rawPost(Buffer.from(body), { 'content-type': 'text/plain' });
    const listed = await answer(await fetch(`${service.url}/reports?profile=demo&limit=100`));

    expect(refused.status).toBe(415);
    expect(refused.body.error).toMatchObject({ code: 'unsupported_media_type', field: 'Content-Type' });
    expect((listed.body.jobs as { period: string }[]).map((job) => job.period)).not.toContain('2024-03');
  });

  it('answers 400 naming body to a body that is not valid UTF-8', async () => {
    const bytes = Buffer.concat([
      Buffer.from('{"profile": "demo", "period": "2024-04", "filters": {"hash": "0x', 'utf8'),
      Buffer.from([0xff]),
      Buffer.from('"}}', 'utf8'),
    ]);

    const refused = await rawPost(bytes, { 'content-type': 'application/json' });

    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ field: 'body', message: 'body: is not valid UTF-8' });
  });

  it('builds statusUrl and Location from its own configured URL, never from Host or X-Forwarded-Proto', async () => {
    const created = await rawPost(Buffer.from(JSON.stringify({ profile: 'demo', period: '2024-05' })), {
      'content-type': 'application/json',
      // Another name of the same server: accepted, and still not what the URLs are built from.
      host: `localhost:${new URL(service.url).port}`,
      'x-forwarded-proto': 'gopher',
    });

    expect(created.status).toBe(202);
    expect(created.body.statusUrl).toBe(`${service.url}/reports/${created.body.jobId}`);
    expect(created.headers.get('location')).toBe(created.body.statusUrl);
  });
});

describe('npm run serve: the queue of one API key', () => {
  it('runs the queued exports of one key first in, first out', async () => {
    await service.starter.idle();
    done.length = 0;
    // The first is the longest: run at once, it would end last.
    const ids: unknown[] = [];
    for (const period of ['2025', '2025-02', '2025-03']) {
      ids.push((await post({ profile: 'acme', period, formats: ['csv'] })).body.jobId);
    }

    await service.starter.idle();

    expect(done).toEqual(ids);
  });
});

describe('npm run serve: only for this machine (DNS rebinding)', () => {
  const port = () => new URL(service.url).port;
  const json = { 'content-type': 'application/json' };

  it('refuses with 421 naming Host every route asked for by another name, before the route runs', async () => {
    const foreign = { host: `evil.example:${port()}` };

    const answers = await Promise.all([
      rawRequest('GET', '/reports?profile=demo', foreign),
      rawRequest('GET', `/reports/${'0'.repeat(32)}`, foreign),
      rawRequest('GET', '/portal', foreign),
      rawRequest('GET', '/openapi.json', foreign),
      rawPost(Buffer.from(JSON.stringify({ profile: 'demo', period: '2023-06' })), { ...json, ...foreign }),
    ]);
    const listed = await answer(await fetch(`${service.url}/reports?profile=demo&limit=100`));

    expect(answers.map((refused) => [refused.status, refused.body.error?.field])).toEqual(
      Array.from({ length: 5 }, () => [421, 'Host']),
    );
    expect(answers[0]?.body.error).toMatchObject({
      code: 'misdirected_request',
      issues: [{ field: 'Host', reason: 'this server answers only to its loopback address' }],
    });
    expect((listed.body.jobs as { period: string }[]).map((job) => job.period)).not.toContain('2023-06');
  });

  it('refuses the loopback address with another port and a Host without one', async () => {
    const otherPort = await rawRequest('GET', '/reports?profile=demo', { host: '127.0.0.1:1' });
    const noPort = await rawRequest('GET', '/reports?profile=demo', { host: 'localhost' });

    expect([otherPort.status, noPort.status]).toEqual([421, 421]);
  });

  it('answers its loopback names: 127.0.0.1, localhost and [::1] with its port', async () => {
    const statuses = [];
    for (const name of ['127.0.0.1', 'LOCALHOST', '[::1]']) {
      statuses.push((await rawRequest('GET', '/reports?profile=demo', { host: `${name}:${port()}` })).status);
    }

    expect(statuses).toEqual([200, 200, 200]);
  });

  it('refuses with 403 naming Origin a change asked for by another site, and starts nothing', async () => {
    const refused = await rawPost(Buffer.from(JSON.stringify({ profile: 'demo', period: '2023-07' })), {
      ...json,
      origin: 'http://evil.example',
    });
    const listed = await answer(await fetch(`${service.url}/reports?profile=demo&limit=100`));

    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'forbidden_origin', field: 'Origin' });
    expect((listed.body.jobs as { period: string }[]).map((job) => job.period)).not.toContain('2023-07');
  });

  it('accepts a change from its own origin', async () => {
    const created = await rawPost(Buffer.from(JSON.stringify({ profile: 'demo', period: '2023-08' })), {
      ...json,
      origin: `http://localhost:${port()}`,
    });
    await service.starter.idle();

    expect(created.status).toBe(202);
  });
});
