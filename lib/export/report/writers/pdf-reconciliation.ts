import Big from 'big.js';
import {
  CELL_PADDING,
  contentWidth,
  FONTS,
  heading,
  type PdfColumn,
  pairs,
  paragraph,
  TABLE_SIZE,
  table,
} from './pdf-layout.ts';

/**
 * The tax pack's Reconciliation section (issue 42, item 2): the result of comparing the balances
 * computed from the transactions with the service's reported balances, and, when they differ, the
 * ledgers and tokens that do, with their figures as exact decimals (as the Reconciliation sheet
 * and CSV hold them). Compact: the sheet and the CSV list every ledger and token.
 */

/**
 * The reconciliation's result as the manifest records it (`reconciliation.status` and `.note`).
 * Read defensively: a status this version does not know is printed as it is, with its note.
 */
export interface TaxPackReconciliation {
  /** `reconciled`, `differences` or `not-reconciled` (see lib/export/reconcile). */
  status: string;
  /** The result in one line of words, e.g. `not reconciled: the service reports no balances`. */
  note: string;
  /** What to do about a difference, printed under the differing rows. */
  whatToDo: string;
}

/** What the renderer is given: the result, and the instant `note` names as its period end (ISO). */
export interface ReconciliationResult extends TaxPackReconciliation {
  periodEnd?: string;
}

/** A row of the `reconciliation` table by column key (see lib/export/reconcile/tables.ts). */
export type ReconciliationRow = Record<string, string>;

const STATUS_WORDS: Readonly<Record<string, string>> = {
  reconciled: 'reconciled',
  differences: 'differences: not reconciled',
  'not-reconciled': 'not reconciled',
};

/** A row whose difference is not zero (a cell that is no decimal counts as differing). */
function differs(row: ReconciliationRow): boolean {
  try {
    return !new Big(row.difference ?? '').eq(0);
  } catch {
    return true;
  }
}

/** Smallest font size the differing rows are set in to keep each amount on one line. */
const SMALLEST_SIZE = 6;

/**
 * Column widths from what the columns hold (exact amounts run to 25 digits and more), at the
 * table's usual size or, when the longest amounts do not fit side by side, a point or two smaller;
 * past that the cells wrap (never cut).
 */
function fitted(
  doc: PDFKit.PDFDocument,
  headers: readonly string[],
  rows: readonly (readonly string[])[],
): { weights: number[]; size: number } {
  let weights: number[] = [];
  for (let size = TABLE_SIZE; size >= SMALLEST_SIZE; size -= 1) {
    weights = headers.map((header, i) => {
      doc.font(FONTS.bold).fontSize(size);
      const words = header.split(' ').map((word) => doc.widthOfString(word));
      doc.font(FONTS.regular).fontSize(size);
      const texts = rows.map((row) => doc.widthOfString(row[i] ?? ''));
      return Math.max(...words, ...texts) + CELL_PADDING;
    });
    if (weights.reduce((sum, w) => sum + w, 0) <= contentWidth(doc)) return { weights, size };
  }
  return { weights, size: SMALLEST_SIZE };
}

/**
 * Draws the section: the status and the result's words, then the differing ledgers and tokens
 * (computed, reported carried back to the period end, difference) and what to do about them.
 * `rows`: the reconciliation table's rows, or null when the set has none (not reconciled).
 */
export function reconciliationSection(
  doc: PDFKit.PDFDocument,
  result: TaxPackReconciliation,
  rows: readonly ReconciliationRow[] | null,
): void {
  heading(doc, "Reconciliation with the service's balances");
  pairs(doc, [
    ['Status', STATUS_WORDS[result.status] ?? result.status],
    ['Result', result.note],
  ]);
  const differing = (rows ?? []).filter(differs);
  if (differing.length > 0) {
    paragraph(
      doc,
      'Each ledger and token that differs: the balance computed from the transactions at the period end, ' +
        "the service's reported balance carried back to the period end (less the movements after it), and " +
        'the difference (reported less computed). A transaction missing from the listings shows as its own movement.',
    );
    const cells = differing.map((r) =>
      [r.ledger_id, r.token, r.computed, r.reported_at_period_end, r.difference].map((cell) => cell ?? ''),
    );
    const headers = ['Ledger', 'Token', 'Computed', 'Reported at period end', 'Difference'];
    const { weights, size } = fitted(doc, headers, cells);
    const columns = headers.map(
      (header, i): PdfColumn => ({ header, weight: weights[i] ?? 1, ...(i > 1 ? { align: 'right' } : {}) }),
    );
    table(doc, columns, cells, () => false, size);
    paragraph(doc, `What to do: ${result.whatToDo}.`);
  }
  if (rows !== null) {
    paragraph(
      doc,
      'The Reconciliation sheet and the reconciliation CSV list every ledger and token, with the movements ' +
        'used to carry the reported balances back.',
    );
  }
}
