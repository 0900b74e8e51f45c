/**
 * `pbs-export verify` says instants as the rest of the product does: a day in the period's time
 * zone ("the start of 2025-02-01 (Europe/Berlin)"), never a UTC instant. Sets of a Berlin client
 * written here by hand (their manifests only, the fields verify reads); the CLI runs in process;
 * the expected lines are written out here.
 */
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';

const ZONE = 'Europe/Berlin';
/** Midnight in Berlin at the start of 2025-01-01, 2025-02-01 and 2025-03-01, as UTC instants. */
const JAN_1 = '2024-12-31T23:00:00.000Z';
const FEB_1 = '2025-01-31T23:00:00.000Z';
const MAR_1 = '2025-02-28T23:00:00.000Z';
const ISO_INSTANT = /\d{4}-\d\d-\d\dT\d\d:\d\d/;

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'pbs-verify-instants-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

interface SetSpec {
  label: string;
  runId: string;
  start: string;
  end: string;
  /** The set it continues (written before it), if any. */
  previous?: { prefix: string; bytes: Buffer; label: string; start: string; end: string };
  /** `reconciliation`: balances at period start and at `closingAt` (the period end unless told). */
  opening?: string;
  closing?: string;
  closingAt?: string;
}

/** Writes a set's manifest under `root`: its folder (prefix) and its bytes. */
async function writeSet(spec: SetSpec): Promise<{ prefix: string; bytes: Buffer }> {
  const prefix = `reports/berlin/${spec.label}/${spec.runId}`;
  const balance = (amount: string) => [{ ledgerId: 'ledger-1', symbol: 'ETH', amount }];
  const manifest = {
    runId: spec.runId,
    completedAt: spec.end,
    request: { profile: 'berlin' },
    period: { label: spec.label, start: spec.start, end: spec.end, timeZone: ZONE },
    files: [],
    previous:
      spec.previous === undefined
        ? null
        : {
            prefix: spec.previous.prefix,
            manifestSha256: createHash('sha256').update(spec.previous.bytes).digest('hex'),
            period: { label: spec.previous.label, start: spec.previous.start, end: spec.previous.end },
            completedAt: spec.previous.end,
          },
    reconciliation: {
      periodStart: spec.start,
      periodEnd: spec.closingAt ?? spec.end,
      ...(spec.opening === undefined ? {} : { openingBalances: balance(spec.opening) }),
      ...(spec.closing === undefined ? {} : { closingBalances: balance(spec.closing) }),
    },
  };
  const bytes = Buffer.from(JSON.stringify(manifest));
  await mkdir(join(root, prefix), { recursive: true });
  await writeFile(join(root, prefix, 'manifest.json'), bytes);
  return { prefix, bytes };
}

/** January (closing with `closing`, at `closingAt`) and February after it (opening with `opening`). */
async function twoMonths(options: { closing: string; opening: string; closingAt?: string }) {
  const january = await writeSet({
    label: '2025-01',
    runId: 'run-jan',
    start: JAN_1,
    end: FEB_1,
    opening: '0',
    closing: options.closing,
    ...(options.closingAt === undefined ? {} : { closingAt: options.closingAt }),
  });
  await writeSet({
    label: '2025-02',
    runId: 'run-feb',
    start: FEB_1,
    end: MAR_1,
    previous: { ...january, label: '2025-01', start: JAN_1, end: FEB_1 },
    opening: options.opening,
    closing: options.opening,
  });
}

/** `pbs-export verify <root>`: its exit code and its lines about balances and the chain. */
async function verifyLines(): Promise<{ code: number; lines: string[] }> {
  const done = await runCli(['verify', root], {});
  const lines = done.stdout.split('\n').filter((line) => /balances|chain|continues/.test(line));
  return { code: done.code, lines };
}

describe("verify's instants, in the period's zone", () => {
  it('says a balance break at the start of the day in the zone', async () => {
    await twoMonths({ closing: '1.5', opening: '1.25' });
    const { code, lines } = await verifyLines();
    expect(code).toBe(1);
    expect(lines).toContain(
      '  ✗ balances break: ledger ledger-1, token ETH opens at the start of 2025-02-01 (Europe/Berlin) with 1.25, ' +
        'but the previous set reports/berlin/2025-01/run-jan (2025-01) closed with 1.5 (difference -0.25)',
    );
    expect(lines.filter((line) => ISO_INSTANT.test(line))).toEqual([]);
  });

  it('says balances that continue at the start of the day in the zone', async () => {
    await twoMonths({ closing: '2', opening: '2' });
    const { code, lines } = await verifyLines();
    expect(code).toBe(0);
    expect(lines).toContain(
      '  ✓ opening balances equal the closing balances of the previous set reports/berlin/2025-01/run-jan (2025-01) ' +
        '(1 ledger balance at the start of 2025-02-01 (Europe/Berlin))',
    );
    expect(lines.filter((line) => ISO_INSTANT.test(line))).toEqual([]);
  });

  it("says the previous set's closing instant, taken before its period was over, as a date and time in the zone", async () => {
    // January exported at 10:32:07 in Berlin on 15 January: its closing balances hold then.
    await twoMonths({ closing: '2', opening: '3', closingAt: '2025-01-15T09:32:07.000Z' });
    const { code, lines } = await verifyLines();
    expect(code).toBe(0);
    expect(lines).toContain(
      '  ✓ balances not compared: the closing balances of the previous set reports/berlin/2025-01/run-jan (2025-01) ' +
        'hold at 2025-01-15 10:32:07 (Europe/Berlin), not where this set opens ' +
        '(the start of 2025-02-01 (Europe/Berlin); it was exported before its period was over)',
    );
    expect(lines.filter((line) => ISO_INSTANT.test(line))).toEqual([]);
  });

  it('says where a broken chain link ends and this set begins as days in the zone', async () => {
    // A December whose period ends where January begins is named as February's previous set.
    const december = await writeSet({
      label: '2024-12',
      runId: 'run-dec',
      start: '2024-11-30T23:00:00.000Z',
      end: JAN_1,
    });
    await writeSet({
      label: '2025-02',
      runId: 'run-feb',
      start: FEB_1,
      end: MAR_1,
      previous: { ...december, label: '2024-12', start: '2024-11-30T23:00:00.000Z', end: JAN_1 },
    });
    const { code, lines } = await verifyLines();
    expect(code).toBe(1);
    expect(lines).toContain(
      '  ✗ chain broken: the previous set reports/berlin/2024-12/run-dec (2024-12) ends at the end of 2024-12-31 (Europe/Berlin), ' +
        'not where this set begins (the start of 2025-02-01 (Europe/Berlin))',
    );
    expect(lines.filter((line) => ISO_INSTANT.test(line))).toEqual([]);
  });
});
