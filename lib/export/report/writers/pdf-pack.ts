import type { Writable } from 'node:stream';
import Big from 'big.js';
import type { Row, TableSource } from '../../../domain/index.ts';
import {
  dejavuFolder,
  heading,
  newDocument,
  type PdfColumn,
  pairs,
  paragraph,
  stampPages,
  table,
} from './pdf-layout.ts';
import { reconciliationSection, type TaxPackReconciliation } from './pdf-reconciliation.ts';

export type { ReconciliationResult, TaxPackReconciliation } from './pdf-reconciliation.ts';

/**
 * The PDF tax pack of a gains report: one document per run, for a person who files the return.
 * Page 1 explains what the pack is (client, period, rule set, method, currency, data source);
 * then the figures as the forms take them (Schedule D and the Form 8949 totals per box for US
 * rules; the tax summary's boxes and lines, SA108 or Anlage SO, otherwise), income, holdings at
 * the end of the period, the reconciliation with the service's balances (when the run made one)
 * and the warnings by kind. Every page carries "Page N of M", the run id
 * and the snapshot's SHA-256 (the manifest's own hash cannot be on pages it lists).
 */

/** What the explainer page states, in words ready to print. */
export interface TaxPackFacts {
  profile: string;
  /** e.g. `2025`, `2024-04-06_2025-04-05`. */
  periodLabel: string;
  /** The days the period covers, e.g. `2024-01-01 to 2024-12-31 (days in Europe/Berlin)`. */
  periodWords: string;
  taxRules: string;
  method: string;
  pooling: string;
  /** ISO 4217 code of the figures, or null when the data's values are taken as they are. */
  currency: string | null;
  /** Which rates converted the values into `currency` (the ECB's, HMRC's, with their files), or that none did. */
  conversion: string;
  /** Where the data came from (the service's base address). */
  dataSource: string;
  /** The words of the demo banner when the data is the simulator's, else null. */
  demoBanner: string | null;
  /** The warning of DEMO rates files (`demoRatesNote`) when the run converted with them. */
  demoRates?: string | null;
  runId: string;
  snapshotSha256: string;
  generator: string;
  createdAt: string;
}

/** What `writeTaxPack` takes: the facts and the gains report's tables (by `spec.name`). */
export interface TaxPackInput {
  facts: TaxPackFacts;
  tables: readonly TableSource[];
  /**
   * The run's reconciliation result (the manifest's `reconciliation`); its differing rows are read
   * from the `reconciliation` table. Absent: the pack has no Reconciliation section (a run that
   * made none, or a render from a snapshot, whose set keeps its run's).
   */
  reconciliation?: TaxPackReconciliation;
  /** Folder of DejaVuSans.ttf and DejaVuSans-Bold.ttf (default: the `dejavu-fonts-ttf` package's). */
  fontDir?: string;
}

/** File name suffix of the pack: `<base>_tax_pack.pdf`. */
export const TAX_PACK_SUFFIX = '_tax_pack.pdf';

/** A table's rows as records by column key. */
type Records = Record<string, string>[];

async function records(tables: readonly TableSource[], name: string): Promise<Records | null> {
  const source = tables.find((t) => t.spec.name === name);
  if (source === undefined) return null;
  const keys = source.spec.columns.map((column) => column.key);
  const out: Records = [];
  for await (const row of source.rows() as AsyncIterable<Row>) {
    out.push(Object.fromEntries(keys.map((key, i) => [key, row[i] ?? ''])));
  }
  return out;
}

const num = (header: string, weight = 2): PdfColumn => ({ header, weight, align: 'right' });
const txt = (header: string, weight = 2): PdfColumn => ({ header, weight });

/**
 * Writes the tax pack of `input` to `out` (ended when done) and returns its page count.
 */
export async function writeTaxPack(input: TaxPackInput, out: Writable): Promise<{ pages: number }> {
  const { facts, tables } = input;
  const doc = await newDocument(input.fontDir ?? dejavuFolder(), {
    Title: `Tax pack ${facts.profile} ${facts.periodLabel}`,
    Subject: `Gains report figures under ${facts.taxRules} rules`,
    // The run's time, not the clock's: the same run renders the same bytes.
    CreationDate: new Date(facts.createdAt),
  });
  const finished = new Promise<void>((resolve, reject) => {
    out.once('finish', resolve);
    out.once('error', reject);
    doc.once('error', reject);
  });
  doc.pipe(out);
  explainer(doc, facts);
  const money = facts.currency === null ? '' : ` (${facts.currency})`;
  await formFigures(doc, tables, money);
  await incomeSection(doc, tables, money);
  await holdingsSection(doc, tables, money);
  if (input.reconciliation !== undefined) {
    reconciliationSection(doc, input.reconciliation, await records(tables, 'reconciliation'));
  }
  await warningsSection(doc, tables);
  const pages = stampPages(
    doc,
    facts.demoBanner,
    (page, count) =>
      `Page ${page} of ${count} · ${facts.profile} ${facts.periodLabel} · run ${facts.runId}\n` +
      `snapshot sha256 ${facts.snapshotSha256}`,
  );
  doc.end();
  await finished;
  return { pages };
}

function explainer(doc: PDFKit.PDFDocument, facts: TaxPackFacts): void {
  heading(doc, `Tax pack: ${facts.profile}, ${facts.periodLabel}`, 18);
  if (facts.demoBanner !== null) {
    paragraph(doc, `${facts.demoBanner}: made by the simulator built into pbs-export. Not for filing.`);
  }
  if (facts.demoRates) paragraph(doc, `Note: ${facts.demoRates}.`);
  paragraph(
    doc,
    'The figures of the gains report as the tax forms take them, with the income, the holdings at the ' +
      'end of the period and the warnings raised while computing them. The CSV files and the workbook ' +
      'of the same run hold every line; the manifest lists every file with its SHA-256.',
  );
  pairs(doc, [
    ['Client (profile)', facts.profile],
    ['Period', facts.periodWords],
    ['Rule set', facts.taxRules],
    ['Lot method', facts.method],
    ['Pools', facts.pooling],
    ['Currency', facts.currency ?? 'values as the data gives them (no currency named)'],
    ['Currency conversion', facts.conversion],
    ['Data source', facts.dataSource],
    ['Run id', facts.runId],
    ['Snapshot SHA-256', facts.snapshotSha256],
    ['Data fetched at', facts.createdAt],
    ['Generator', facts.generator],
  ]);
}

/** Schedule D and the Form 8949 totals (US), or the tax summary's boxes and lines (UK, DE). */
async function formFigures(
  doc: PDFKit.PDFDocument,
  tables: readonly TableSource[],
  money: string,
): Promise<void> {
  const scheduleD = await records(tables, 'schedule-d');
  if (scheduleD !== null) {
    heading(doc, 'Schedule D (Form 1040), Part I and Part II');
    table(
      doc,
      [
        txt('Tax year', 1.2),
        txt('Line', 0.8),
        txt('Box', 0.8),
        num(`Proceeds${money}`),
        num(`Cost${money}`),
        num(`Adjustment${money}`),
        num(`Gain or loss${money}`),
        num('Rows', 1),
      ],
      scheduleD.map((r) =>
        [r.tax_year, r.line, r.box, r.proceeds, r.cost, r.adjustment, r.gain, r.rows].map(String),
      ),
    );
  }
  const form = await records(tables, 'form-8949');
  if (form !== null) {
    heading(doc, 'Form 8949: totals per box');
    const totals = form.filter((r) => r.description?.startsWith('TOTAL'));
    table(
      doc,
      [
        txt('Tax year', 1.2),
        txt('Part', 0.8),
        txt('Box', 0.8),
        num(`Proceeds (d)${money}`),
        num(`Cost (e)${money}`),
        num(`Adjustment (g)${money}`),
        num(`Gain or loss (h)${money}`),
      ],
      totals.map((r) => [r.tax_year, r.part, r.box, r.proceeds, r.cost, r.adjustment, r.gain].map(String)),
    );
  }
  const summary = await records(tables, 'tax_summary');
  const title = tables.find((t) => t.spec.name === 'tax_summary')?.spec.title;
  if (summary !== null) {
    heading(doc, title ?? 'Tax summary');
    table(
      doc,
      [
        txt('Tax year', 1.15),
        txt('Box / line', 2.2),
        txt('What it is', 1.8),
        txt('Item', 4.15),
        num('Number', 1.3),
        num(`Amount${money}`, 2),
      ],
      // A line whose entry is a text (Anlage SO Zeilen 42 and 43) gives it in its note: "enter: …".
      summary.map((r) =>
        [
          r.tax_year,
          r.form_line,
          r.what,
          r.note?.startsWith('enter:') ? `${r.item}\n${r.note}` : r.item,
          r.number,
          r.amount,
        ].map(String),
      ),
      (row) => row[1] !== '',
    );
    paragraph(
      doc,
      'Rows in bold go in a box or line of the form; the others say what they are: an input of a calculator (not a box), a reference figure of the law, or working.',
    );
  }
}

async function incomeSection(
  doc: PDFKit.PDFDocument,
  tables: readonly TableSource[],
  money: string,
): Promise<void> {
  const income = await records(tables, 'income');
  if (income === null) return;
  heading(doc, 'Income');
  table(
    doc,
    [
      txt('Tax year', 1.2),
      txt('Category', 2),
      txt('Token', 1.5),
      num('Receipts', 1.2),
      num('Quantity', 3),
      num(`Value${money}`, 2),
    ],
    income.map((r) => [r.tax_year, r.category, r.token, r.receipts, r.quantity, r.value].map(String)),
    (row) => row.includes('TOTAL'),
  );
  const schedule1 = await records(tables, 'schedule-1');
  if (schedule1 !== null) {
    heading(doc, 'Schedule 1 (Form 1040), line 8v: digital assets received as ordinary income', 11);
    table(
      doc,
      [
        txt('Tax year', 1.2),
        txt('Line', 0.8),
        txt('Item', 4),
        num('Receipts', 1.2),
        num(`Amount${money}`, 2),
      ],
      schedule1.map((r) => [r.tax_year, r.line, r.item, r.receipts, r.amount].map(String)),
      (row) => row[2]?.startsWith('TOTAL') === true,
    );
  }
}

async function holdingsSection(
  doc: PDFKit.PDFDocument,
  tables: readonly TableSource[],
  money: string,
): Promise<void> {
  const holdings = await records(tables, 'holdings');
  if (holdings === null) return;
  heading(doc, 'Holdings at the end of the period');
  const held = holdings.filter((r) => !new Big(r.closing_quantity || '0').eq(0));
  if (held.length === 0) {
    paragraph(doc, 'Nothing held at the end of the period.');
    return;
  }
  if (holdings.some((r) => r.held_quantity !== undefined)) {
    poolAndWallets(doc, held, money);
    return;
  }
  table(
    doc,
    [txt('Token', 1.2), txt('Account', 2.5), num('Quantity', 3.5), num(`Cost basis${money}`, 2.2)],
    held.map((r) => [r.token, r.account || '(all accounts)', r.closing_quantity, r.closing_cost].map(String)),
  );
}

/**
 * HMRC identification: the section 104 pool and what the wallets hold, side by side, and why they
 * differ (tokens sold at the end of the period and matched with acquisitions after it).
 */
function poolAndWallets(doc: PDFKit.PDFDocument, held: Records, money: string): void {
  paragraph(
    doc,
    "The section 104 pool is what HMRC's rules hold at the end of the period; it still counts tokens sold in its last 30 days and matched under the 30-day rule with acquisitions after its end. The wallets no longer hold those: they hold the pool less them, shown at the pool's average cost (as the journal carries them).",
  );
  table(
    doc,
    [
      txt('Token', 1.2),
      num('Section 104 pool', 3),
      num(`Pool cost${money}`, 2),
      num('Matched ahead', 2.4),
      num('Held in the wallets', 3),
      num(`At pool cost${money}`, 2),
    ],
    held.map((r) =>
      [
        r.token,
        r.closing_quantity,
        r.closing_cost,
        r.matched_ahead_quantity,
        r.held_quantity,
        r.held_cost,
      ].map(String),
    ),
  );
}

async function warningsSection(doc: PDFKit.PDFDocument, tables: readonly TableSource[]): Promise<void> {
  const all = await records(tables, 'gains_warnings');
  if (all === null) return;
  // With adjustments the table also lists the warnings they resolved: the pack counts the open ones.
  const warnings = all.filter((w) => !(w.resolution ?? '').startsWith('resolved'));
  const resolved = all.length - warnings.length;
  heading(doc, 'Warnings');
  if (warnings.length === 0) {
    paragraph(doc, 'None: every disposal found its lots and every transfer its counterpart.');
    return;
  }
  const byKind = new Map<string, { count: number; tokens: Set<string> }>();
  for (const w of warnings) {
    const entry = byKind.get(w.kind ?? '') ?? { count: 0, tokens: new Set<string>() };
    entry.count += 1;
    if (w.token) entry.tokens.add(w.token);
    byKind.set(w.kind ?? '', entry);
  }
  paragraph(
    doc,
    `${warnings.length} ${warnings.length === 1 ? 'warning' : 'warnings'}; the warnings file lists each with its transaction.${resolved > 0 ? ` ${resolved} more were resolved by the preparer's adjustments (the Adjustments sheet lists them).` : ''}`,
  );
  table(
    doc,
    [txt('Kind', 2.5), num('Warnings', 1.2), txt('Tokens', 5)],
    [...byKind].map(([kind, e]) => [kind, String(e.count), [...e.tokens].sort().join(', ')]),
  );
}
