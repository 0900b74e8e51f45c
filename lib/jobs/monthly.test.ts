import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { S3TestServer } from '../../test/support/s3.ts';
import { startJobStoreServer } from '../../test/support/workflow.ts';
import { previousLocalMonth, scheduleKey, startMonthlyExport } from './monthly.ts';
import type { JobStore } from './store.ts';

describe('previousLocalMonth', () => {
  it('returns the month before the local date when the zone is still in the previous month', () => {
    // 2026-11-01T00:30Z is 2026-10-31 20:30 in New York: the local month is October.
    expect(previousLocalMonth('2026-11-01T00:30:00Z', 'America/New_York')).toBe('2026-09');
  });

  it('returns the month before the UTC month in UTC', () => {
    expect(previousLocalMonth('2026-11-01T00:30:00Z', 'UTC')).toBe('2026-10');
  });

  it('returns the month before the local date when the zone is already in the next month', () => {
    // 2026-10-31T15:30Z is 2026-11-01 00:30 in Tokyo.
    expect(previousLocalMonth('2026-10-31T15:30:00Z', 'Asia/Tokyo')).toBe('2026-10');
  });

  it('returns December of the previous year in January', () => {
    expect(previousLocalMonth('2027-01-01T06:00:00Z', 'Europe/Berlin')).toBe('2026-12');
  });

  it('reads an instant given with an offset', () => {
    expect(previousLocalMonth('2026-11-01T01:30:00+01:00', 'UTC')).toBe('2026-10');
  });
});

describe('scheduleKey', () => {
  it('returns schedule:{profile}:{month}', () => {
    expect(scheduleKey('acme', '2026-09')).toBe('schedule:acme:2026-09');
  });
});

describe('startMonthlyExport', () => {
  let server: S3TestServer;
  let jobs: JobStore;
  beforeAll(async () => {
    ({ server, jobs } = await startJobStoreServer());
  });
  afterAll(async () => {
    await server.close();
  });

  const registry = {
    acme: {
      secretArn: 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:pbs/acme-AbCdEf',
      timeZone: 'Europe/London',
      monthly: true,
    },
  };
  const deps = () => {
    const started: string[] = [];
    return {
      started,
      deps: {
        registry,
        jobs,
        starter: { start: async (input: { jobId: string }) => void started.push(input.jobId) },
        now: () => new Date('2026-12-01T06:00:05Z'),
      },
    };
  };

  it("returns a job whose request carries the deployment's gains policies and the gains report", async () => {
    const { deps: d, started } = deps();
    const gains = {
      taxRules: 'uk',
      transferToleranceHours: 48,
      sameInstantOrder: 'acquisitions-first',
      protocolMoves: 'non-taxable',
      transferInBasis: 'zero',
      transferFee: 'basis',
    };
    const out = await startMonthlyExport(
      { profile: 'acme', scheduledTime: '2026-12-01T06:00:00Z', gains },
      d,
    );
    expect(out.created).toBe(true);
    expect(started).toEqual([out.jobId]);
    const job = await jobs.get(out.jobId);
    expect(job?.request.period).toBe('2026-11');
    expect(job?.request.reports).toEqual(['transactions', 'movements', 'summary', 'gains']);
    // The rule set's fixed choices are filled in; every policy arrives as configured.
    expect(job?.request.gains).toEqual({
      ...gains,
      method: 'hmrc',
      pooling: 'universal',
      taxYearStart: '04-06',
      longTermYears: 1,
      currency: 'GBP',
    });
  });

  it("returns a job with the journal report when the item carries the profile's journal", async () => {
    const { deps: d } = deps();
    const journal = { rollup: true, formats: ['hledger'] };
    const out = await startMonthlyExport(
      { profile: 'acme', scheduledTime: '2026-10-01T06:00:00Z', gains: null, journal },
      d,
    );
    const job = await jobs.get(out.jobId);
    expect(job?.request.reports).toEqual(['transactions', 'movements', 'summary', 'gains', 'journal']);
    expect(job?.request.journal).toMatchObject(journal);
    expect(job?.request.gains?.method).toBe('fifo');
  });

  it('returns a job with the default reports and no gains when the item has no policies', async () => {
    const { deps: d } = deps();
    const out = await startMonthlyExport(
      { profile: 'acme', scheduledTime: '2026-11-01T06:00:00Z', gains: null },
      d,
    );
    const job = await jobs.get(out.jobId);
    expect(job?.request.reports).toEqual(['transactions', 'movements', 'summary']);
    expect(job?.request.gains).toBeUndefined();
  });

  it('throws naming the gains field a policy contradicts, and starts nothing', async () => {
    const { deps: d, started } = deps();
    await expect(
      startMonthlyExport(
        { profile: 'acme', scheduledTime: '2026-10-01T06:00:00Z', gains: { taxRules: 'uk', method: 'fifo' } },
        d,
      ),
    ).rejects.toThrow(/gains\.method: uk rules match by HMRC identification/);
    expect(started).toEqual([]);
  });
});
