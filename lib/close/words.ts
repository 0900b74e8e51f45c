/** The restatement in words, for its Read me, the notice and the CLI. */
import { DateTime } from 'luxon';
import { addDecimal, signDecimal, toMinorUnit } from '../domain/index.ts';
import type { Effect, Restatement } from './restatement.ts';

/** `2025-10` → `October 2025`; `2025` → `2025`; a tax year → `2024-04-06 to 2025-04-05`. */
export function periodWords(period: string): string {
  if (/^\d{4}-\d{2}$/.test(period))
    return DateTime.fromFormat(period, 'yyyy-MM', { locale: 'en' }).toFormat('LLLL yyyy');
  return period.replace('_', ' to ');
}

/** `-1234.5` → `−1 234.5`, `12` → `+12`: signed, groups of three digits, as a reader writes it. */
export function signedAmount(value: string): string {
  const sign = signDecimal(value) < 0 ? '−' : '+';
  const [whole = '0', fraction] = value.replace(/^[-+]/, '').split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ' ');
  return `${sign}${grouped}${fraction === undefined ? '' : `.${fraction}`}`;
}

/**
 * A money amount in words: signed and grouped as {@link signedAmount}, to its currency's minor
 * unit as the reports show money (`-298563.6`, `USD` → `−298 563.60 USD`), then the currency.
 */
export function signedMoney(value: string, currency: string): string {
  const amount = signedAmount(toMinorUnit(value, currency === '' ? null : currency));
  return currency === '' ? amount : `${amount} ${currency}`;
}

/** The currency a money header names: `Net gain or loss (USD)` → `USD`. */
function currencyOf(header: string): string {
  return /\(([A-Z]{3})\)\s*$/.exec(header)?.[1] ?? '';
}

/** Sums the changes of `effects` per label. */
function sumBy(effects: readonly Effect[], label: (effect: Effect) => string): [string, string][] {
  const sums = new Map<string, string>();
  for (const effect of effects)
    sums.set(label(effect), addDecimal(sums.get(label(effect)) ?? '0', effect.change));
  return [...sums];
}

/** The main effects in words: realised gains per tax year, income, the period's value and fees. */
function effectWords(effects: readonly Effect[]): string[] {
  const totalRow = (effect: Effect) => effect.row.includes('TOTAL');
  const gains = effects.filter((e) => e.table === 'gains_summary' && e.column === 'net' && totalRow(e));
  const income = effects.filter((e) => e.table === 'income' && e.column === 'value' && totalRow(e));
  const values = effects.filter(
    (e) => e.table === 'summary_by_month' && (e.column === 'value' || e.column === 'fees') && totalRow(e),
  );
  return [
    ...sumBy(gains, (e) => `realised gains of ${e.row[0]}|${currencyOf(e.header)}`).map(([label, sum]) =>
      phrase(label, sum),
    ),
    ...sumBy(income, (e) => `income of ${e.row[0]}|${currencyOf(e.header)}`).map(([label, sum]) =>
      phrase(label, sum),
    ),
    ...sumBy(
      values,
      (e) => `${e.column === 'value' ? 'value' : 'fees'} of the period|${e.row[e.row.length - 1] ?? ''}`,
    ).map(([label, sum]) => phrase(label, sum)),
  ];
}

function phrase(label: string, sum: string): string {
  const [words, currency] = label.split('|');
  return `${words} ${signedMoney(sum, currency ?? '')}`;
}

/**
 * The restatement in one sentence: "October 2025 changed after it was closed on 3 November:
 * 2 transactions modified, 1 deleted; realised gains of 2025 −1 234.56 USD".
 */
export function restatementSentence(restatement: Restatement): string {
  const { close } = restatement.info;
  const closedAt = DateTime.fromISO(close.at, { zone: restatement.timeZone, locale: 'en' });
  const count = (kind: string) => restatement.changes.filter((c) => c.kind === kind).length;
  const parts = (['added', 'modified', 'deleted'] as const)
    .map((kind) => [count(kind), kind] as const)
    .filter(([n]) => n > 0)
    .map(([n, kind], k) => (k === 0 ? `${n} transaction${n === 1 ? '' : 's'} ${kind}` : `${n} ${kind}`));
  const effects = effectWords(restatement.effects);
  const superseded = restatement.info.supersedes;
  if (parts.length === 0 && superseded !== undefined) {
    return `${periodWords(restatement.period)} is back as it was closed on ${closedAt.toFormat('d LLLL yyyy')} by ${close.by}: the changes the restatement checked at ${superseded.checkedAt} stated were undone`;
  }
  return (
    `${periodWords(restatement.period)} changed after it was closed on ${closedAt.toFormat('d LLLL yyyy')} by ${close.by}: ` +
    `${parts.join(', ') || 'no transaction changed'}` +
    `${effects.length > 0 ? `; ${effects.join(', ')}` : '; no total changed'}`
  );
}
