/**
 * The plain exporter's fixed CSV cells (`bench/plain-export.ts`): `minimal-export.ts`'s
 * `fixedCells`, with a text cell that needs neither guarding nor quoting (the common one) found by
 * one regular expression and appended as it is, and the row built by concatenation.
 */
import { decimalOf, guard, type Item, money, quantities, quote, textOf } from './minimal-export.ts';

/** A text that no formula guard, surrogate repair or CSV quoting would change. */
const PLAIN_CELL = /^(?!'*[=+\-@\t\r])[^",\r\n\ud800-\udfff]*$/;

/** A text cell as `quote(guard(text))` writes it. */
function cell(value: unknown): string {
  if (typeof value === 'string' && PLAIN_CELL.test(value)) return value;
  return quote(guard(textOf(value) ?? ''));
}

/** A cell written unguarded (money, decimals), quoted as needed. */
function unguarded(value: string): string {
  return PLAIN_CELL.test(value) ? value : quote(value);
}

/** The fixed columns of an item's CSV row, joined: the same text as `fixedCells`. */
export function plainCells(item: Item, ms: number): string {
  const value = (item.value ?? {}) as Item;
  const fee = (item.fee ?? {}) as Item;
  const date = new Date(ms).toISOString().slice(0, 23);
  const movements = (item.movements ?? []) as Item[];
  return (
    `${cell(item.id)},${date},${date},${cell(item.type)},${cell(item.subType)},${cell(item.category)},` +
    `${cell(item.protocol)},${cell(item.hash)},${cell(item.accountId)},${cell(item.ledgerId)},` +
    `${cell(quantities(movements, false))},${cell(quantities(movements, true))},` +
    `${unguarded(money(decimalOf(value.amount), textOf(value.currency)))},${cell(value.currency)},` +
    `${unguarded(money(decimalOf(fee.amount), textOf(fee.currency)))},${cell(fee.currency)},${cell(fee.symbol)},` +
    `${unguarded(decimalOf(fee.quantity) ?? '')}`
  );
}
