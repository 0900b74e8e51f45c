import type { Manifest } from '../export/index.ts';
import { countWords, totalWords } from '../export/index.ts';

/** Prints what a run produced: counts, totals and where each file is. */
export function printSummary(out: { write(text: string): unknown }, manifest: Manifest, root: string): void {
  const lines = [
    '',
    `Export ${manifest.runId} finished: ${manifest.period.label} in ${manifest.period.timeZone}`,
    ...(manifest.period.partial ? [`  PARTIAL PERIOD: ${manifest.period.partial.note}`] : []),
    ...Object.entries(manifest.counts).map(([name, value]) => `  ${countWords(name)}: ${value}`),
    ...Object.entries(manifest.totals ?? {}).map(([name, value]) => `  ${totalWords(name)}: ${value}`),
    ...journalLines(manifest),
    `Files (in ${root}):`,
    ...manifest.files.map(
      (file) =>
        `  ${file.location}${file.rows === undefined ? '' : `  (${file.rows} rows)`}  ${file.bytes} bytes`,
    ),
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
