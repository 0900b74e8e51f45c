import type { Manifest } from '../export/manifest.ts';

/** Prints what a run produced: counts, totals and where each file is. */
export function printSummary(out: { write(text: string): unknown }, manifest: Manifest, root: string): void {
  const lines = [
    '',
    `Export ${manifest.runId} finished: ${manifest.period.label} in ${manifest.period.timeZone}`,
    ...Object.entries(manifest.counts).map(([name, value]) => `  ${name}: ${value}`),
    ...Object.entries(manifest.totals ?? {}).map(([name, value]) => `  ${name}: ${value}`),
    `Files (in ${root}):`,
    ...manifest.files.map(
      (file) =>
        `  ${file.location}${file.rows === undefined ? '' : `  (${file.rows} rows)`}  ${file.bytes} bytes`,
    ),
    '',
  ];
  out.write(lines.join('\n'));
}
