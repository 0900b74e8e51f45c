/**
 * A period that does not end on a calendar month end (the UK tax year to 5 April, a range of days):
 * the journal's last balance check is dated the period's last day, and the days a lot method reads
 * after the period (HMRC identification's 30 days) do not enter the journal's holdings.
 */
import { describe, expect, it } from 'vitest';
import { leg, tx } from '../../test/support/gains.ts';
import { runJournalAt } from '../../test/support/journal.ts';
import type { CanonicalTransaction } from '../domain/index.ts';

const trade = (id: string, date: string, amount: string, value: string): CanonicalTransaction =>
  tx({ id, date, movements: [leg('BTC', amount, value)] });

/** The hledger file's balance assertions: date → account → asserted quantity (`= N BTC`). */
function assertions(hledger: string): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>();
  let date: string | null = null;
  for (const line of hledger.split('\n')) {
    const head = /^(\d{4}-\d{2}-\d{2}) /.exec(line);
    if (head !== null) date = line.includes('(assertions)') ? (head[1] as string) : null;
    const posting = /^ {4}(\S+) +0 \S+ = (\S+) \S+$/.exec(line);
    if (date !== null && posting !== null) {
      const at = out.get(date) ?? new Map<string, string>();
      at.set(posting[1] as string, posting[2] as string);
      out.set(date, at);
    }
  }
  return out;
}

const hledgerOf = (run: Awaited<ReturnType<typeof runJournalAt>>) =>
  run.files.find((file) => file.name === 'journal.hledger')?.body as string;

const UK = { gains: { taxRules: 'uk', currency: 'USD' }, timeZone: 'Europe/London' };

describe('journal of a period not ending on a month end', () => {
  it('closes the UK tax year on 5 April, before the 30 days read after it', async () => {
    const run = await runJournalAt(
      [
        trade('b1', '2024-05-01T10:00:00.000Z', '1', '1000'),
        // Sold in the tax year, 0.1 of it matched with the buy-back of 20 April (30-day rule).
        trade('s1', '2025-04-01T10:00:00.000Z', '-0.4', '-800'),
        trade('b2', '2025-04-20T10:00:00.000Z', '0.1', '300'),
        // After the tax year: read by the engine for the 30-day rule, never in this journal.
        trade('s2', '2025-04-25T10:00:00.000Z', '-0.3', '-900'),
      ],
      { from: '2024-04-06', to: '2025-04-05' },
      '2025-06-01T00:00:00.000Z',
      UK,
    );
    const checks = assertions(hledgerOf(run));
    // The wallets held 1 − 0.4 = 0.6 BTC on 5 April; no check after the period's last day.
    expect(checks.get('2025-04-05')?.get('Assets:Crypto:BTC')).toBe('0.6');
    expect([...checks.keys()].filter((date) => date > '2025-04-05')).toEqual([]);
    expect(run.entries.every((entry) => entry.date <= '2025-04-05')).toBe(true);
    expect(run.entries.flatMap((entry) => entry.txIds)).not.toContain('s2');
  });

  it('closes a range of days mid-month on its last day (UK rules, a sale in the days read after it)', async () => {
    const run = await runJournalAt(
      [
        trade('b1', '2024-09-01T10:00:00.000Z', '1', '1000'),
        trade('s1', '2024-10-10T10:00:00.000Z', '-0.25', '-300'),
        trade('s2', '2024-10-25T10:00:00.000Z', '-0.5', '-700'),
      ],
      { from: '2024-10-01', to: '2024-10-20' },
      '2025-01-01T00:00:00.000Z',
      UK,
    );
    const checks = assertions(hledgerOf(run));
    expect([...checks.keys()]).toEqual(['2024-10-20']);
    expect(checks.get('2024-10-20')?.get('Assets:Crypto:BTC')).toBe('0.75');
  });

  it('dates the last check of a mid-month period on its last day (first in, first out)', async () => {
    const run = await runJournalAt(
      [
        trade('b1', '2025-09-01T10:00:00.000Z', '2', '1000'),
        trade('s1', '2025-10-05T10:00:00.000Z', '-0.5', '-300'),
      ],
      { from: '2025-09-15', to: '2025-10-20' },
      '2026-01-01T00:00:00.000Z',
      { gains: { currency: 'USD' } },
    );
    expect([...assertions(hledgerOf(run)).keys()]).toEqual(['2025-09-30', '2025-10-20']);
    expect(run.streamed['journal.beancount']).toMatch(/^2025-10-21 balance Assets:Crypto:BTC +1\.5 BTC$/m);
  });
});
