/**
 * `verify`'s check of a set's opening balances (issue 42, item 3): against the closing balances of
 * the closed set its opening check compared with (`reconciliation.opening.previousSet`), when the
 * manifest names one; else against the set the chain continues (`previous`). The two differ when
 * the previous period was exported again after its close: the chain follows the latest set, the
 * opening check the closed one. Each finding names the set it compared with.
 */
import { balanceBreaks, closingBalancesOf, openingBalancesOf, pairCount } from './balances.ts';
import { sha256 } from './chain.ts';
import type { Finding } from './finding.ts';
import { instantOf } from './instants.ts';

/** The set the chain continues, as `checkLink` found it: its manifest read and unchanged. */
export interface ChainPrevious {
  prefix: string;
  /** Words naming it: `the previous set reports/demo/2025-01/<run> (2025-01)`. */
  where: string;
  /** Its manifest, parsed; absent when it is missing or changed (then nothing is compared with it). */
  manifest?: unknown;
}

/** The closed set a manifest's opening check named (`reconciliation.opening.previousSet`), or null. */
interface ClosedSet {
  prefix: string;
  runId: string;
  manifestSha256: string;
  label: string;
}

/** What the balance check reads. */
export interface ManifestReader {
  read(key: string): Promise<Buffer | null>;
}

/**
 * The opening balances of `manifest` against the closed set its opening check named, or else the
 * chain's previous set (`chain`, null when there is none): one finding when they are equal, one
 * per ledger and token that breaks, one when the closed set is missing or changed, none when
 * either side records no balances.
 */
export async function checkOpeningBalances(
  store: ManifestReader,
  manifest: unknown,
  chain: ChainPrevious | null,
): Promise<Finding[]> {
  const closed = closedSetOf(manifest);
  if (closed === null || closed.prefix === chain?.prefix) {
    return chain?.manifest === undefined ? [] : compare(manifest, chain.manifest, chain.where);
  }
  const later = chain === null ? '' : `; the chain continues the later ${chain.where.replace(/^the /, '')}`;
  const where = `the closed set ${closed.prefix} (${closed.label}, run ${closed.runId}, the one its opening check compared with${later})`;
  const bytes = await store.read(`${closed.prefix}/manifest.json`);
  if (bytes === null) return [{ holds: false, text: `balances not compared: ${where} is missing` }];
  if (sha256(bytes) !== closed.manifestSha256) {
    return [
      {
        holds: false,
        text: `balances not compared: the manifest of ${where} changed since this set's opening check named it`,
      },
    ];
  }
  return compare(manifest, parsed(bytes), where);
}

/** The closed set of `reconciliation.opening.previousSet`, read defensively; null when none. */
function closedSetOf(manifest: unknown): ClosedSet | null {
  const set = (
    manifest as { reconciliation?: { opening?: { previousSet?: Record<string, unknown> | null } } } | null
  )?.reconciliation?.opening?.previousSet;
  const label = (set?.period as { label?: unknown } | undefined)?.label;
  if (
    typeof set?.prefix !== 'string' ||
    typeof set.runId !== 'string' ||
    typeof set.manifestSha256 !== 'string' ||
    typeof label !== 'string'
  ) {
    return null;
  }
  return { prefix: set.prefix, runId: set.runId, manifestSha256: set.manifestSha256, label };
}

function parsed(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return null;
  }
}

/**
 * The opening balances of `manifest` against the closing ones of `previousManifest`, named `where`;
 * instants said as days in the zone of `manifest`.
 */
function compare(manifest: unknown, previousManifest: unknown, where: string): Finding[] {
  const opening = openingBalancesOf(manifest);
  const closing = closingBalancesOf(previousManifest);
  if (opening === null || closing === null) return [];
  const opensAt = instantOf(manifest, opening.at, 'start');
  if (Date.parse(closing.at) !== Date.parse(opening.at)) {
    const closesAt = instantOf(manifest, closing.at, 'end');
    return [
      {
        holds: true,
        text: `balances not compared: the closing balances of ${where} hold at ${closesAt}, not where this set opens (${opensAt}; it was exported before its period was over)`,
      },
    ];
  }
  const breaks = balanceBreaks(opening.balances, closing.balances);
  if (breaks.length === 0) {
    const pairs = pairCount(opening.balances, closing.balances);
    return [
      {
        holds: true,
        text: `opening balances equal the closing balances of ${where} (${pairs} ledger balance${pairs === 1 ? '' : 's'} at ${opensAt})`,
      },
    ];
  }
  return breaks.map((b) => ({
    holds: false,
    text: `balances break: ledger ${b.ledgerId}, token ${b.symbol} opens at ${opensAt} with ${b.opening}, but ${where} closed with ${b.previousClosing} (difference ${b.difference})`,
  }));
}
