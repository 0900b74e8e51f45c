/** Edit distance between two flags (insertions, deletions, substitutions). */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      current[j] = Math.min(
        (previous[j] ?? 0) + 1,
        (current[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/**
 * The known flag closest to a misspelt one, if close enough to be what was meant: a prefix of it
 * (`--profil`), or within a third of its length in edits (`--perod`, `--time-zome`).
 */
export function closestFlag(given: string, known: readonly string[]): string | undefined {
  const name = given.replace(/^-+/, '').split('=')[0] ?? '';
  if (name === '') return undefined;
  const prefixed = known.filter((flag) => flag.startsWith(name));
  if (prefixed.length === 1) return `--${prefixed[0]}`;
  let best: { flag: string; edits: number } | undefined;
  for (const flag of known) {
    const edits = distance(name, flag);
    if (best === undefined || edits < best.edits) best = { flag, edits };
  }
  return best !== undefined && best.edits <= Math.max(1, Math.floor(name.length / 3))
    ? `--${best.flag}`
    : undefined;
}
