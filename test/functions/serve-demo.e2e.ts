/**
 * `npm run serve` exports the simulator's profiles: the files it publishes are demo data and must
 * say so as those of `npm run demo` do, whatever path (state machine, workers) made them. Over real
 * HTTP on loopback, the files downloaded through the links the API hands out.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalService, startLocalService } from '../../lib/local/index.ts';

let service: LocalService;
beforeAll(async () => {
  service = await startLocalService({ port: 0 });
});
afterAll(async () => {
  await service.close();
});

describe('npm run serve: exports of the simulator', () => {
  it('publishes a Read me and a manifest marked DEMO DATA', async () => {
    const posted = await fetch(`${service.url}/reports`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ profile: 'acme', period: '2025-03', formats: ['csv'] }),
    });
    const { jobId } = (await posted.json()) as { jobId: string };
    await service.starter.idle();

    const job = (await (await fetch(`${service.url}/reports/${jobId}`)).json()) as {
      state: string;
      files: { name: string; url: string }[];
    };
    const download = async (name: string) => {
      const file = job.files.find((candidate) => candidate.name === name);
      if (file === undefined) throw new Error(`no ${name} in ${JSON.stringify(job)}`);
      return (await fetch(file.url)).text();
    };

    expect(job.state).toBe('succeeded');
    expect((await download('README.txt')).replace(/^\uFEFF/, '')).toMatch(/^DEMO DATA, not a real portfolio/);
    const manifest = JSON.parse(await download('manifest.json'));
    expect([manifest.demo, manifest.notice]).toEqual([true, 'DEMO DATA, not a real portfolio']);
  });

  it('publishes the PDF tax pack of a gains export in a workbook, listed in the manifest', async () => {
    const posted = await fetch(`${service.url}/reports`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ profile: 'demo', period: '2025-02', reports: ['gains'], formats: ['xlsx'] }),
    });
    const { jobId } = (await posted.json()) as { jobId: string };
    await service.starter.idle();
    const job = (await (await fetch(`${service.url}/reports/${jobId}`)).json()) as {
      state: string;
      files: { name: string; url: string }[];
    };
    expect(job.state).toBe('succeeded');
    const pack = job.files.find((file) => file.name.endsWith('_tax_pack.pdf'));
    expect(pack?.name).toBe('demo_2025-02_tax_pack.pdf');
    const bytes = Buffer.from(await (await fetch(pack?.url ?? '')).arrayBuffer());
    expect(bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const manifestFile = job.files.find((file) => file.name === 'manifest.json');
    const manifest = JSON.parse(await (await fetch(manifestFile?.url ?? '')).text());
    expect(manifest.files.map((file: { name: string }) => file.name)).toContain('demo_2025-02_tax_pack.pdf');
  });
});
