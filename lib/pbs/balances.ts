/**
 * The ledgers' balances as the service reports them (GAPS.md "Reported balances"): each item
 * `{symbol, amount, asOf}` read from the ledger items' field, or from a separate endpoint per
 * ledger, as the shape's `balances` says. `none`: the service reports no balances (null).
 */
import { PbsResponseError } from './errors.ts';
import { type InstantReading, readInstant } from './instant.ts';
import type { RawLedger } from './model.ts';
import { getPath } from './path.ts';
import type { BalancesSource } from './shape.ts';

/** One token's balance of one ledger, as reported at `asOf`. */
export interface ReportedBalance {
  ledgerId: string;
  symbol: string;
  /** Exact decimal string, as the service wrote it. */
  amount: string;
  /** When the service held this balance (epoch ms). */
  asOfMs: number;
}

const DECIMAL = /^-?\d+(\.\d+)?$/;

/** How {@link readReportedBalances} reaches the service. */
export interface BalancesAccess {
  source: BalancesSource;
  instants: InstantReading;
  ledgers(): AsyncIterable<RawLedger>;
  /** One signed GET of `signedPath`, its parsed JSON body. */
  getJson(signedPath: string): Promise<unknown>;
}

/**
 * Every ledger's reported balances, or null when the service reports none (`source: none`).
 * Throws `PbsResponseError` naming the field when an item is not `{symbol, amount, asOf}`.
 */
export async function readReportedBalances(access: BalancesAccess): Promise<ReportedBalance[] | null> {
  const { source } = access;
  if (source.source === 'none') return null;
  const out: ReportedBalance[] = [];
  for await (const ledger of access.ledgers()) {
    if (source.source === 'ledger-field') {
      const items = getPath(ledger, source.path);
      out.push(...parseItems(items ?? [], ledger.id, `/v2/ledgers`, `${ledger.id}.${source.path}`, access));
    } else {
      const path = source.pathTemplate.replaceAll('{ledgerId}', encodeURIComponent(ledger.id));
      const body = await access.getJson(path);
      const items = source.itemsPath === null ? body : getPath(body, source.itemsPath);
      out.push(...parseItems(items, ledger.id, path, source.itemsPath ?? '(body)', access));
    }
  }
  return out;
}

/** The balance items of one ledger, checked. */
function parseItems(
  items: unknown,
  ledgerId: string,
  path: string,
  field: string,
  access: Pick<BalancesAccess, 'instants'>,
): ReportedBalance[] {
  if (!Array.isArray(items)) throw new PbsResponseError(path, field, 'expected an array of balances', false);
  return items.map((item, k) => {
    const at = `${field}[${k}]`;
    const record = (typeof item === 'object' && item !== null ? item : {}) as Record<string, unknown>;
    const { symbol, amount, asOf } = record;
    if (typeof symbol !== 'string' || symbol === '')
      throw new PbsResponseError(path, `${at}.symbol`, 'expected a token symbol', false);
    if (typeof amount !== 'string' || !DECIMAL.test(amount))
      throw new PbsResponseError(path, `${at}.amount`, 'expected a decimal string', false);
    const instant = readInstant(asOf, access.instants);
    if (!instant.ok) throw new PbsResponseError(path, `${at}.asOf`, instant.reason, false);
    return { ledgerId, symbol, amount, asOfMs: instant.ms };
  });
}
