import { type Column, moneyHeader } from '../../domain/index.ts';

/**
 * The UTC and local views of one instant (both cells hold the same ISO instant). Headers name the
 * zone; with the UTC zone the second is headed `Date (UTC, report zone)`, so no two are alike.
 */
const dateColumns = (zone: string): Column[] => [
  { key: 'date_utc', header: 'Date (UTC)', kind: 'datetime', timeZone: 'UTC' },
  {
    key: 'date_local',
    header: zone === 'UTC' ? 'Date (UTC, report zone)' : `Date (${zone})`,
    kind: 'datetime',
    timeZone: zone,
  },
];

/**
 * What a report's money headers name: the currencies of its values and fees, as observed. One
 * currency gives `Value (USD)`; several (or none) give `Value (in the row's currency)`.
 */
export interface MoneyUnits {
  value: ReadonlySet<string>;
  fee: ReadonlySet<string>;
}

const NO_UNITS: MoneyUnits = { value: new Set(), fee: new Set() };

/** Gives each column its description from `descriptions`, by key. */
function described(columns: Column[], descriptions: Readonly<Record<string, string>>): Column[] {
  return columns.map((column) => {
    const description = descriptions[column.key];
    return description === undefined ? column : { ...column, description };
  });
}

const MONEY_NOTE = "rounded to the currency's minor unit (e.g. cents)";

/** The two date columns, described. */
const dateDescriptions = (zone: string) => ({
  date_utc: 'when the transaction happened, in UTC',
  date_local: `the same moment as wall-clock time in the report zone, ${zone}`,
});

/** What each fixed column of the transactions report holds. */
const TRANSACTION_DESCRIPTIONS = (zone: string): Record<string, string> => ({
  id: "the service's id of the transaction",
  ...dateDescriptions(zone),
  type: 'type as the service reports it (trade, transfer, income, …)',
  sub_type: 'sub-type as the service reports it (buy, swap, withdrawal, …)',
  category: 'category as the service reports it',
  protocol: 'DeFi protocol or venue; empty when none',
  hash: 'on-chain transaction hash',
  account_id: 'the account (wallet or exchange account) the transaction belongs to',
  ledger_id: 'the ledger (data source connection) it came from',
  in: "what came into the portfolio: quantity and token, several joined by '; '",
  out: "what left the portfolio: quantity (without sign) and token, several joined by '; '",
  value_amount: `value of the transaction as the service reports it, in the value currency, ${MONEY_NOTE}`,
  value_currency: 'currency of the value (ISO 4217 code, e.g. USD)',
  fee_amount: `fee paid, a positive cost, in the fee currency, ${MONEY_NOTE}`,
  fee_currency: 'currency of the fee amount',
  fee_symbol: 'token the fee was paid in',
  fee_quantity: 'quantity of the fee token paid, exactly as sent',
});

/** Sheet width of the wrapped hash column: a 66-character hash on three lines. */
const HASH_WIDTH = 24;
/** Sheet width of the wrapped id columns: a 29-character transaction id on two lines. */
const ID_WIDTH = 16;
/** Sheet width of the wrapped In and Out columns: `0.0241237458194 stETH` on one line. */
const QUANTITY_TEXT_WIDTH = 24;

/** The fixed columns of the transactions report, in order. */
export function transactionColumns(timeZone: string, units: MoneyUnits = NO_UNITS): Column[] {
  return described(transactionColumnList(timeZone, units), TRANSACTION_DESCRIPTIONS(timeZone));
}

function transactionColumnList(timeZone: string, units: MoneyUnits): Column[] {
  return [
    { key: 'id', header: 'ID', kind: 'text', wrap: true, width: ID_WIDTH },
    ...dateColumns(timeZone),
    { key: 'type', header: 'Type', kind: 'text' },
    { key: 'sub_type', header: 'Sub-type', kind: 'text' },
    { key: 'category', header: 'Category', kind: 'text' },
    { key: 'protocol', header: 'Protocol', kind: 'text' },
    // Long text wraps in narrow columns, so the sheet prints one page wide at a readable size.
    { key: 'hash', header: 'Hash', kind: 'text', wrap: true, width: HASH_WIDTH },
    { key: 'account_id', header: 'Account ID', kind: 'text' },
    { key: 'ledger_id', header: 'Ledger ID', kind: 'text' },
    { key: 'in', header: 'In (quantity token)', kind: 'text', wrap: true, width: QUANTITY_TEXT_WIDTH },
    { key: 'out', header: 'Out (quantity token)', kind: 'text', wrap: true, width: QUANTITY_TEXT_WIDTH },
    { key: 'value_amount', header: moneyHeader('Value', units.value), kind: 'decimal' },
    { key: 'value_currency', header: 'Value currency', kind: 'text' },
    { key: 'fee_amount', header: moneyHeader('Fee', units.fee), kind: 'decimal' },
    { key: 'fee_currency', header: 'Fee currency', kind: 'text' },
    { key: 'fee_symbol', header: 'Fee token', kind: 'text' },
    { key: 'fee_quantity', header: 'Fee quantity (fee token)', kind: 'decimal', exact: true },
  ];
}

/** The fixed columns of the movements report, in order. */
export function movementColumns(timeZone: string, units: MoneyUnits = NO_UNITS): Column[] {
  return described(movementColumnList(timeZone, units), {
    transaction_id: 'id of the transaction the movement belongs to (see Transactions)',
    ...dateDescriptions(timeZone),
    token: 'token symbol',
    amount: 'quantity moved, exactly as sent: positive came in, negative went out',
    value: `value of the movement in the transaction's value currency, same sign as the amount, ${MONEY_NOTE}`,
    direction: "'in' or 'out', from the sign of the amount",
  });
}

function movementColumnList(timeZone: string, units: MoneyUnits): Column[] {
  return [
    { key: 'transaction_id', header: 'Transaction ID', kind: 'text' },
    ...dateColumns(timeZone),
    { key: 'token', header: 'Token', kind: 'text' },
    { key: 'amount', header: 'Amount (token, signed)', kind: 'decimal', exact: true },
    { key: 'value', header: moneyHeader('Value', units.value), kind: 'decimal' },
    { key: 'direction', header: 'Direction', kind: 'text' },
  ];
}

/** The fixed columns of the changes report, in order. */
export function changeColumns(timeZone: string, units: MoneyUnits = NO_UNITS): Column[] {
  return described(changeColumnList(timeZone, units), {
    id: "the service's id of the transaction",
    date: `when the transaction happened, in ${timeZone}; empty for some deleted items`,
    last_modified: `when the service last changed the item, in ${timeZone}`,
    deleted: "'yes' when the item was deleted, else 'no'",
    source_guid: 'id of the data source (exchange, wallet import) the item came from',
    source_name: 'name of that data source',
    type: 'type as the service reports it',
    sub_type: 'sub-type as the service reports it',
    category: 'category as the service reports it',
    protocol: 'DeFi protocol or venue; empty when none',
    hash: 'on-chain transaction hash',
    value_amount: `value as the service reports it, in the value currency, ${MONEY_NOTE}`,
    value_currency: 'currency of the value (ISO 4217 code)',
  });
}

function changeColumnList(timeZone: string, units: MoneyUnits): Column[] {
  return [
    { key: 'id', header: 'ID', kind: 'text' },
    { key: 'date', header: `Date (${timeZone})`, kind: 'datetime', timeZone },
    { key: 'last_modified', header: `Last modified (${timeZone})`, kind: 'datetime', timeZone },
    { key: 'deleted', header: 'Deleted', kind: 'text' },
    { key: 'source_guid', header: 'Source GUID', kind: 'text' },
    { key: 'source_name', header: 'Source name', kind: 'text' },
    { key: 'type', header: 'Type', kind: 'text' },
    { key: 'sub_type', header: 'Sub-type', kind: 'text' },
    { key: 'category', header: 'Category', kind: 'text' },
    { key: 'protocol', header: 'Protocol', kind: 'text' },
    { key: 'hash', header: 'Hash', kind: 'text' },
    { key: 'value_amount', header: moneyHeader('Value', units.value), kind: 'decimal' },
    { key: 'value_currency', header: 'Value currency', kind: 'text' },
  ];
}

/** What one row of each report of the normalizer is. */
export const TABLE_DESCRIPTIONS: Readonly<Record<string, string>> = {
  transactions: 'one row per transaction in the period, in date order',
  movements: 'one row per token movement of a transaction (a trade has one in and one out)',
  changes: 'one row per transaction added, changed or deleted at the service since the date asked for',
};
