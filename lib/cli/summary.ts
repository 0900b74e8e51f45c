import type { HeadlineYear, Manifest, ManifestFile } from '../export/index.ts';
import { countWords, totalWords } from '../export/index.ts';

/** What the summary says besides the manifest: the runs of the same period already beside it. */
export interface SummaryContext {
  /** Run folders of the same profile and period beside this one (a local folder only). */
  earlierRuns?: number;
}

/**
 * Prints what a run produced: the headline figures (each tax year's net gain and income, the
 * warnings still open), the counts that are not zero, the totals, the file to open first and
 * where every file is.
 */
export function printSummary(
  out: { write(text: string): unknown },
  manifest: Manifest,
  root: string,
  context: SummaryContext = {},
): void {
  const folder = runFolder(manifest.files) ?? root;
  const first = fileToOpenFirst(manifest.files);
  const lines = [
    '',
    `Export ${manifest.runId} finished: ${manifest.period.label} in ${manifest.period.timeZone}${manifest.demo ? ' (DEMO DATA)' : ''}`,
    ...(manifest.period.partial ? [`  PARTIAL PERIOD: ${manifest.period.partial.note}`] : []),
    ...headlineLines(manifest),
    ...balanceLines(manifest),
    ...Object.entries(manifest.counts)
      // Zero counters say nothing; the warnings' count is the headline's "Warnings open" already.
      .filter(
        ([name, value]) => value !== 0 && !(name === 'gainsWarnings' && manifest.headline !== undefined),
      )
      .map(([name, value]) => `  ${countWords(name)}: ${value}`),
    ...Object.entries(manifest.totals ?? {}).map(([name, value]) => `  ${totalWords(name)}: ${value}`),
    ...journalLines(manifest),
    ...(first === undefined ? [] : [`Open first: ${first.location}${openFirstWhy(first)}`]),
    `Files (in ${folder}):`,
    ...manifest.files.map(
      (file) =>
        `  ${file.name}${file.rows === undefined ? '' : `  (${file.rows} rows)`}  ${file.bytes} bytes`,
    ),
    ...earlierRunsLines(context.earlierRuns),
    '',
  ];
  out.write(lines.join('\n'));
}

/** Prints presigned download links, one per file. */
export function printLinks(
  out: { write(text: string): unknown },
  links: readonly { name: string; url: string }[],
  expirySeconds: number,
): void {
  out.write(`Download links (valid ${Math.round(expirySeconds / 60)} minutes):\n`);
  for (const link of links) out.write(`  ${link.name}\n    ${link.url}\n`);
}

/** The folder (or prefix) the run's files are in: their common location less the name. */
function runFolder(files: readonly ManifestFile[]): string | undefined {
  const file = files[0];
  if (file === undefined || !file.location.endsWith(file.name)) return undefined;
  return file.location.slice(0, file.location.length - file.name.length).replace(/[/\\]$/, '');
}

/** The workbook (its Read me sheet comes first), else the Read me text, else the first file. */
export function fileToOpenFirst(files: readonly ManifestFile[]): ManifestFile | undefined {
  return (
    files.find((file) => file.name.endsWith('.xlsx')) ??
    files.find((file) => file.name === 'README.txt') ??
    files[0]
  );
}

function openFirstWhy(file: ManifestFile): string {
  if (file.name.endsWith('.xlsx')) return ' (its Read me sheet comes first: what to check, then every sheet)';
  if (file.name === 'README.txt') return ' (what to check, then every file and column)';
  return '';
}

/** Each tax year's net gain and income, and the warnings still open, of a gains run. */
function headlineLines(manifest: Manifest): string[] {
  const headline = manifest.headline;
  if (headline === undefined) return [];
  const open = headline.warningsOpen;
  return [
    ...headline.taxYears.map(
      (year) => `  Tax year ${year.taxYear}: ${gainWords(year)}, income ${money(year.income, year)}`,
    ),
    `  Warnings open: ${open === 0 ? 'none' : `${open} (the Warnings sheet lists each, with what to do)`}`,
  ];
}

/** The manifest's reconciliation as the summary reads it (lib/export/reconcile, `ReconciliationRecord`). */
interface ReconciliationWords {
  reconciliation?: { note?: string; opening?: { note?: string } };
}

/**
 * The reconciliation with the service's balances and the opening-balance check, in the words the
 * Read me's first lines use, for a run whose reports were reconciled (holdings or the journal).
 */
function balanceLines(manifest: Manifest): string[] {
  const record = (manifest as Manifest & ReconciliationWords).reconciliation;
  if (record?.note === undefined) return [];
  const opening = record.opening?.note;
  // The opening check's note begins "opening balances …": it reads as a line of its own.
  return [`  Balances: ${record.note}`, ...(opening === undefined ? [] : [`  ${upperFirst(opening)}`])];
}

function upperFirst(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function gainWords(year: HeadlineYear): string {
  return year.netGain.startsWith('-')
    ? `net loss ${money(year.netGain.slice(1), year)}`
    : `net gain ${money(year.netGain, year)}`;
}

function money(amount: string, year: HeadlineYear): string {
  return year.currency === '' ? amount : `${amount} ${year.currency}`;
}

function earlierRunsLines(earlier: number | undefined): string[] {
  if (earlier === undefined || earlier === 0) return [];
  return [
    `${earlier} earlier ${earlier === 1 ? 'run' : 'runs'} of this period beside it: run folders are named by their start (UTC), so the last one listed is the latest`,
  ];
}

/** The journal's totals and tie-out, when the run wrote one (a run that does not tie out fails). */
function journalLines(manifest: Manifest): string[] {
  const journal = manifest.journal;
  if (journal === undefined) return [];
  // "income by category: staking 12.50, airdrop 3.00": the category names follow the words, so a
  // category itself called "income" does not print as "income income".
  const income = Object.entries(journal.totals.income)
    .map(([category, value]) => `${category} ${value}`)
    .join(', ');
  return [
    `  Journal: ${journal.entries} entries, ${journal.postings} postings in ${journal.currency} (${journal.formats.join(', ')}); ${journal.unclassified} to review on the unclassified account`,
    `  Journal ties out: realised gain ${journal.totals.realisedGain} = gains summary; income by category: ${income || 'none'} = income report; ${journal.checks.at(-1)?.check ?? ''}`,
  ];
}
