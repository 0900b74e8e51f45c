import { describe, expect, it } from 'vitest';
import { balanceFaultError, parseCliArgs } from './cli.ts';
import { CliUsageError } from './errors.ts';
import { startSimulator } from './server.ts';

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

describe('balance fault flags', () => {
  it('reads --hide and --misreport as the demo profile balance faults, and refuses a malformed --misreport', () => {
    const { options } = parseCliArgs(['--hide', 'tx_1', '--misreport', 'led_a:ETH:-0.5']);
    expect(options.balanceFaults).toEqual({
      hide: [{ profile: 'demo', id: 'tx_1' }],
      misreport: [{ profile: 'demo', ledgerId: 'led_a', symbol: 'ETH', delta: '-0.5' }],
    });
    expect(() => parseCliArgs(['--misreport', 'led_a:ETH'])).toThrow(
      /--misreport must be LEDGER:TOKEN:DELTA/,
    );
  });

  it('names --hide when the simulator refuses an id it does not have', async () => {
    const { options } = parseCliArgs(['--hide', 'tx_nope', '--port', '0']);
    const error = await startSimulator(options).then(
      async (sim) => {
        await sim.close();
        return undefined;
      },
      (e: unknown) => e,
    );
    expect(balanceFaultError(error)?.message).toMatch(
      /^--hide: balanceFaults\.hide\[0\]\.id: no live transaction "tx_nope" in profile "demo"/,
    );
  });
});
