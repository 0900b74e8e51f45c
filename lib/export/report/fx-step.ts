/**
 * The conversion step before the gains engine: with `gains.rates`, every value and fee of a
 * transaction that is not in the currency of the gains figures (`gains.currency`) is converted at
 * the published rate of the transaction's calendar day in the tax years' zone, and the rates used
 * are recorded, one line per transaction and currency, in the `fx_conversions_exact` file.
 */
import type { CanonicalTransaction, Row, TableSource, TableSpec } from '../../domain/index.ts';
import { wallClock } from '../../domain/index.ts';
import { ValidationError } from '../../errors.ts';
import {
  type Conversion,
  conversionOn,
  convertAmount,
  crossRate,
  ECB_FALLBACK_DAYS,
  type RateSource,
  type RateTable,
  SOURCE_NAMES,
} from '../../fx/index.ts';
import { ruleSet } from '../../gains/index.ts';
import type { ExportRequest } from '../plan/request.ts';

/** One conversion as the conversions file shows it. */
export interface FxLine {
  txId: string;
  date: string;
  day: string;
  from: string;
  fromPerBase: string;
  to: string;
  toPerBase: string;
  of: string;
  rate: string;
  value: string | null;
  valueConverted: string | null;
  fee: string | null;
  feeConverted: string | null;
}

/** Where the lines go: kept in memory or spooled, read back in order (the gains feed's stores). */
export interface FxLineStore {
  add(lines: readonly FxLine[]): void;
  read(): AsyncIterable<FxLine>;
}

/** The conversion step of a gains feed. */
export interface FxStep {
  /** `tx` with its values and fee in the gains currency (the same object when nothing converts). */
  convert(tx: CanonicalTransaction): CanonicalTransaction;
  /** The conversions file, or `null` without `gains.rates`. */
  table(): TableSource | null;
  /** Transactions converted so far. */
  converted(): number;
}

/** Name of the conversions table (its file is `…_fx_conversions_exact.csv`). */
export const FX_TABLE = 'fx_conversions_exact';

/**
 * The step for `request`: a pass-through without `gains.rates`. With it, `rates` must be the
 * table of the files the request names (same source; the same SHA-256s when it lists them, as a
 * rebuild from a snapshot does), else a `ValidationError` says what to give.
 */
export function createFxStep(
  request: ExportRequest,
  zone: string,
  rates: RateTable | undefined,
  store: FxLineStore,
): FxStep {
  const asked = request.gains?.rates;
  const target = request.gains?.currency ?? null;
  if (asked === undefined || target === null) {
    return { convert: (tx) => tx, table: () => null, converted: () => 0 };
  }
  const table = checkedRates(asked, rates);
  let count = 0;
  return {
    convert(tx) {
      const { converted, lines } = convertTransaction(tx, table, target, zone);
      if (lines.length > 0) {
        count += 1;
        store.add(lines);
      }
      return converted;
    },
    table: () => ({ spec: fxSpec(table), rows: () => rowsOf(store) }),
    converted: () => count,
  };
}

function checkedRates(
  asked: { source: RateSource; files?: Record<string, string> | undefined },
  rates: RateTable | undefined,
): RateTable {
  const name = asked.source.toUpperCase();
  if (rates === undefined) {
    throw new ValidationError(
      'gains.rates',
      `asks for conversion at ${name} rates, but no rates file was given (CLI: --rates ${asked.source}:FILE)`,
    );
  }
  if (rates.source !== asked.source) {
    throw new ValidationError(
      'gains.rates',
      `asks for ${name} rates, but the files given hold ${rates.source.toUpperCase()} rates`,
    );
  }
  if (asked.files !== undefined) {
    const given = rates.files.map((file) => file.sha256).sort();
    const recorded = Object.values(asked.files).sort();
    if (given.join() !== recorded.join()) {
      const list = Object.entries(asked.files)
        .map(([file, sha256]) => `${file} (sha256 ${sha256})`)
        .join(', ');
      throw new ValidationError(
        '--rates',
        `the rates files given are not the ones this run was made with: give ${list}, so the figures are the same`,
      );
    }
  }
  return rates;
}

/** Where each source's files are published (the Read me names it). */
const PUBLISHED_AT: Readonly<Record<RateSource, string>> = {
  ecb: 'https://www.ecb.europa.eu/stats/policy_and_exchange_rates/euro_reference_exchange_rates/html/index.en.html',
  hmrc: 'https://www.trade-tariff.service.gov.uk/exchange_rates',
};

/**
 * The conversion in words, for the Read me and the About sheet: the source and where it is
 * published, which day's rate a transaction gets, the files and where each conversion is listed.
 */
export function conversionWords(
  rates: { source: RateSource; files?: Record<string, string> | undefined },
  currency: string,
  taxRules: string,
): string {
  const zone = ruleSet(taxRules).timeZone ?? 'the report time zone';
  const which =
    rates.source === 'ecb'
      ? `of each transaction's day in ${zone} (on a day without a publication, a weekend or holiday, the latest earlier one, at most ${ECB_FALLBACK_DAYS} days before)`
      : `of each transaction's month in ${zone}`;
  const files = Object.entries(rates.files ?? {})
    .map(([name, sha256]) => `${name} (sha256 ${sha256})`)
    .join(', ');
  return `values not in ${currency} converted into it before the gains were computed, at the ${SOURCE_NAMES[rates.source]} (${PUBLISHED_AT[rates.source]}) ${which}; cross rates through the base, the published rates kept exact and each amount rounded once at 18 decimal places${files === '' ? '' : `; rates files: ${files}`}; every conversion with its rates and their date: "Currency conversions (exact)" (CSV only)`;
}

/** The calendar day of an instant in `zone`, `YYYY-MM-DD`. */
function dayIn(date: string, zone: string): string {
  return wallClock(Date.parse(date), zone).toISOString().slice(0, 10);
}

function convertTransaction(
  tx: CanonicalTransaction,
  table: RateTable,
  target: string,
  zone: string,
): { converted: CanonicalTransaction; lines: FxLine[] } {
  const valued = tx.valueAmount !== null || tx.movements.some((movement) => movement.value !== null);
  const valueFrom =
    valued && tx.valueCurrency !== null && tx.valueCurrency !== target ? tx.valueCurrency : null;
  const feeFrom =
    tx.feeAmount !== null && tx.feeCurrency !== null && tx.feeCurrency !== target ? tx.feeCurrency : null;
  if (valueFrom === null && feeFrom === null) return { converted: tx, lines: [] };
  const day = dayIn(tx.date, zone);
  const conversions = new Map<string, Conversion>();
  const conversion = (from: string) => {
    const known = conversions.get(from) ?? conversionOn(table, from, target, day);
    conversions.set(from, known);
    return known;
  };
  const convertedValue = (amount: string | null) =>
    amount === null || valueFrom === null ? amount : convertAmount(amount, conversion(valueFrom));
  const converted: CanonicalTransaction = {
    ...tx,
    valueAmount: convertedValue(tx.valueAmount),
    valueCurrency: valueFrom === null ? tx.valueCurrency : target,
    movements: tx.movements.map((movement) =>
      valueFrom === null || movement.value === null
        ? movement
        : { ...movement, value: convertedValue(movement.value) },
    ),
    feeAmount:
      feeFrom === null || tx.feeAmount === null
        ? tx.feeAmount
        : convertAmount(tx.feeAmount, conversion(feeFrom)),
    feeCurrency: feeFrom === null ? tx.feeCurrency : target,
  };
  const lines = [...conversions.entries()].map(([from, used]): FxLine => {
    const value = from === valueFrom ? tx.valueAmount : null;
    const fee = from === feeFrom ? tx.feeAmount : null;
    return {
      txId: tx.id,
      date: tx.date,
      day,
      from,
      fromPerBase: used.from.perBase,
      to: target,
      toPerBase: used.to.perBase,
      of: used.from.currency === table.base ? used.to.of : used.from.of,
      rate: crossRate(used),
      value,
      valueConverted: value === null ? null : converted.valueAmount,
      fee,
      feeConverted: fee === null ? null : converted.feeAmount,
    };
  });
  return { converted, lines };
}

function fxSpec(table: RateTable): TableSpec {
  const base = table.base;
  const text = (key: string, header: string, description: string) => ({
    key,
    header,
    kind: 'text' as const,
    description,
  });
  const decimal = (key: string, header: string, description: string) => ({
    key,
    header,
    kind: 'decimal' as const,
    description,
  });
  return {
    name: FX_TABLE,
    title: 'Currency conversions (exact)',
    description: `one line per transaction and currency converted into the currency of the gains figures before they were computed, at the ${SOURCE_NAMES[table.source]}, with the rates used and the day they were published for; every amount exact, for machines (CSV only)`,
    csvOnly: true,
    columns: [
      text('transaction_id', 'Transaction', 'the transaction converted'),
      { key: 'date', header: 'Date (UTC)', kind: 'datetime', description: 'when the transaction happened' },
      text(
        'day',
        'Day looked up',
        "the transaction's calendar day in the tax years' zone, whose rate is used",
      ),
      text('rate_of', 'Rate of', 'the publication day (ECB) or month (HMRC) of the rates used'),
      text('from', 'From currency', 'the currency the service valued the transaction in'),
      decimal(
        'from_per_base',
        `From rate (units per 1 ${base})`,
        `the from currency's rate as published, units per 1 ${base}`,
      ),
      text('to', 'To currency', 'the currency of the gains figures'),
      decimal(
        'to_per_base',
        `To rate (units per 1 ${base})`,
        `the to currency's rate as published, units per 1 ${base} (1 for ${base} itself)`,
      ),
      decimal(
        'rate',
        'Rate (to per 1 from)',
        'to rate ÷ from rate, to 18 decimal places, for reading (the amounts use the published rates)',
      ),
      decimal('value', 'Value (from)', "the transaction's value as the service sent it"),
      decimal(
        'value_converted',
        'Value (to)',
        'value × to rate ÷ from rate, rounded once at 18 decimal places, half to even; movement values likewise',
      ),
      decimal('fee', 'Fee (from)', "the transaction's fee as the service sent it, when in this currency"),
      decimal('fee_converted', 'Fee (to)', 'fee × to rate ÷ from rate, as the value'),
    ],
  };
}

async function* rowsOf(store: FxLineStore): AsyncGenerator<Row> {
  for await (const line of store.read()) {
    yield [
      line.txId,
      line.date,
      line.day,
      line.of,
      line.from,
      line.fromPerBase,
      line.to,
      line.toPerBase,
      line.rate,
      line.value,
      line.valueConverted,
      line.fee,
      line.feeConverted,
    ];
  }
}
