import { describe, expect, it } from 'vitest';
import { parseCliArgs } from './cli.ts';
import { CliUsageError } from './errors.ts';

describe('parseCliArgs', () => {
  it('returns the port, demo transaction count, seed, latency and rate limit from the flags', () => {
    const { options } = parseCliArgs([
      '--port',
      '9000',
      '--transactions',
      '100000',
      '--seed',
      '5',
      '--latency-ms',
      '20',
      '--rate-limit',
      '50',
    ]);
    expect({
      port: options.port,
      demo: options.profiles?.find((p) => p.name === 'demo')?.transactions,
      seed: options.seed,
      latency: options.faults?.latencyMs,
      rate: options.rateLimitPerSecond,
    }).toEqual({ port: 9000, demo: 100_000, seed: 5, latency: 20, rate: 50 });
  });

  it('returns port 8080 when no flag is given', () => {
    expect(parseCliArgs([]).options.port).toBe(8080);
  });

  it('throws a usage error naming --port for a non-integer port', () => {
    expect(() => parseCliArgs(['--port', 'abc'])).toThrow(expect.objectContaining({ flag: '--port' }));
  });

  it('throws a usage error naming an unknown flag', () => {
    expect(() => parseCliArgs(['--bogus'])).toThrow(CliUsageError);
  });
});
