/**
 * Words of the Read me that columns and warnings do not carry themselves: what each column of
 * the gains reports holds (what, unit, sign), what each warning kind means and what to do about
 * it, and the counts that need a reader's attention, for its first screen.
 */
import type { Column, TableSource } from '../../domain/index.ts';

const MONEY =
  "in the reports' currency (named in the header and the currency column), rounded to its minor unit";
const QUANTITY = "quantity of the row's token, exact (never rounded), never negative";

/**
 * What a column of the gains reports holds, by CSV column key, where the column does not say
 * itself (`Column.description`): what, unit and sign.
 */
const COLUMN_WORDS: Readonly<Record<string, string>> = {
  token: 'the token (asset symbol) the row is about',
  quantity: QUANTITY,
  tax_year: 'the tax year the row belongs to (see "Tax years" for the days it runs)',
  account: 'the account (wallet) id; empty where pools are kept for the whole portfolio',
  term: 'short or long: held up to, or longer than, the long-term holding period of the options below',
  proceeds: `what the disposals fetched, ${MONEY}; positive`,
  cost: `cost basis of the lots disposed of, ${MONEY}; positive`,
  cost_basis: `cost basis of the lot matched, ${MONEY}; positive`,
  gain_loss: `proceeds − cost basis, ${MONEY}; positive is a gain, negative a loss`,
  gains: `sum of the rows with a gain, ${MONEY}; positive`,
  losses: `sum of the rows with a loss, ${MONEY}; negative`,
  net: `gains + losses (= proceeds − cost), ${MONEY}; positive is a net gain`,
  value: `fiat value at receipt, ${MONEY}; positive`,
  receipts: 'number of receipts (income transactions) added up in the row',
  lines: 'number of disposal lines added up in the row',
  first_day: 'first day the row covers (YYYY-MM-DD, in the tax year’s time zone)',
  last_day: 'last day the row covers, included (YYYY-MM-DD)',
  category: 'the kind of income (staking, reward, interest, …) as the service categorised it',
  disposed_tx_id: 'id of the transaction that disposed of the tokens',
  acquired_tx_id: 'id of the transaction that acquired the lot matched; empty for a zero-basis rest',
  date_disposed: 'date and time of the disposal, in the report time zone',
  date_acquired: 'date and time the lot was acquired, in the report time zone',
  date: 'date and time of the transaction, in the report time zone',
  transaction_id: 'id of the transaction the row is about (search for it in the transactions report)',
  kind: 'the warning kind: see "Warning kinds" in this Read me for what it means and what to do',
  message: 'the warning in words, naming what the engine did',
  suggestion:
    'where the data points at a resolution, the adjustment suggested (in words, with its id): nothing is applied until you accept it',
  rule: 'the HMRC matching rule that matched the lot: same day, 30 days (bed and breakfast) or section 104 pool',
  note: 'a remark on the row, in words',
  item: 'what the line is (a line of the tax form, or a total)',
  transactions: 'number of transactions the row adds up',
  pool_quantity: `tokens in the section 104 pool after the row, ${QUANTITY}`,
  pool_cost: `allowable cost of the section 104 pool after the row, ${MONEY}`,
  change: 'what changed the pool: an acquisition (+) or a disposal (−)',
  opening_quantity: `holding at the start of the period, ${QUANTITY}`,
  opening_cost: `cost basis of the opening holding, ${MONEY}`,
  acquired_quantity: `bought or received in the period, ${QUANTITY}`,
  acquired_cost: `cost basis of what was acquired, ${MONEY}`,
  transferred_in_quantity: `moved in from another account of the portfolio, ${QUANTITY}`,
  transferred_in_cost: `cost basis carried in with it, ${MONEY}`,
  disposed_quantity: `sold, swapped or spent in the period, ${QUANTITY}`,
  disposed_cost: `cost basis of what was disposed of, ${MONEY}`,
  transferred_out_quantity: `moved out to another account of the portfolio, ${QUANTITY}`,
  transferred_out_cost: `cost basis carried out with it, ${MONEY}`,
  unmatched_disposed_quantity: `disposed of without lots to match (zero cost basis: see warning kind zero-basis), ${QUANTITY}`,
  closing_quantity: `holding at the end of the period, ${QUANTITY}`,
  closing_cost: `cost basis of the closing holding, ${MONEY}`,
  check_quantity:
    'opening + acquired + transferred in − disposed − transferred out − closing quantity: 0 when the books balance',
  check_cost:
    'opening + acquired + transferred in − disposed − transferred out − closing cost, from the exact figures: 0.00 when the books balance',
};

/** A column's meaning for the Read me: its own description, else the words above, else from its kind. */
export function columnMeaning(column: Column): string {
  if (column.description !== undefined) return column.description;
  const known = COLUMN_WORDS[column.key];
  if (known !== undefined) return known;
  switch (column.kind) {
    case 'datetime':
      return `date and time${column.timeZone === undefined ? '' : ` in ${column.timeZone}`}`;
    case 'integer':
      return 'a count (whole number)';
    case 'decimal':
      return 'a number, exact as the service sent it';
    default:
      return 'text, as the service sent it';
  }
}

/** What each warning kind means and what to do about it (naming the adjustment that resolves it, see README "Resolving warnings"). */
export const WARNING_WORDS: Readonly<Record<string, string>> = {
  'zero-basis':
    'a disposal found fewer tokens in its lots than it disposed of; the rest was given a cost basis of zero (its whole proceeds are gain). Check that every purchase and transfer in of the token is in the data (an exchange or wallet missing from the profile). If the client bought them where the data does not reach, resolve it with a "missing-lots" adjustment (the lots: quantity, cost, date acquired), or with "opening-lots" for holdings from before the history starts; if the tokens came from another own account, pair the transfer with a "transfer-pair" adjustment.',
  'missing-value':
    'the service sent no fiat value (or fee value) for the transaction; zero was used. Find its value at that time and enter it with a "value" adjustment (for one token of the transaction if it has several), or ask for the data to be fixed.',
  'negative-balance':
    'a transfer moved or withdrew more of the token than the account held; the missing part has no lots. Look for an earlier deposit, purchase or transfer into that account missing from the data; enter it with "opening-lots" (holdings from before the history) or pair a transfer in from another own account with "transfer-pair".',
  'unmatched-transfer':
    'a transfer in or out has no counterpart in the portfolio (the other side is outside it). A transfer out is treated as leaving the portfolio without a sale, a transfer in as arriving at the cost noted. If the other side is in the portfolio but more than the pairing tolerance apart (or under another hash), pair the two with a "transfer-pair" adjustment; if a transfer in came from outside, give its cost (and date acquired) with "cost-basis"; if it was a gift, a payment or a loss, say so with a "category" adjustment; if the token is worthless spam, mark it with "spam".',
  'missing-cost-basis':
    'a lot arrived with no known cost (a transfer in from outside); it was given a cost basis of zero, so its disposal shows its whole proceeds as gain. Enter its real cost (and the date it was acquired) with a "cost-basis" adjustment, or pair it with the transfer out it came from with "transfer-pair".',
  'thirty-day-window':
    "HMRC's 30-day rule: the disposal's 30 days after reach past what was fetched, so a later acquisition may still change its cost. No adjustment resolves it: export again once the 30 days are over.",
  'other-currency':
    "the transaction's value is in another currency than the reports'; it was used as it is, not converted. Export with published rates (--rates), or convert it (at the rate of its day) before filing; no adjustment resolves it.",
};

/** The open warnings of a run by kind, counted from its warnings table (empty without one). */
export async function warningsByKind(tables: readonly TableSource[]): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  const table = tables.find((source) => source.spec.name === 'gains_warnings');
  if (table === undefined) return counts;
  const at = table.spec.columns.findIndex((column) => column.key === 'kind');
  // With adjustments the table also lists the warnings they resolved: those are not counted.
  const resolution = table.spec.columns.findIndex((column) => column.key === 'resolution');
  for await (const row of table.rows()) {
    if (resolution >= 0 && (row[resolution] ?? '').startsWith('resolved')) continue;
    const kind = row[at] ?? '';
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
  }
  return counts;
}
