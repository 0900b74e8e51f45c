// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it replaces
const CONTROL = /[\u0000-\u001f]/g;

/** Excel's limit on sheet name length. */
export const MAX_SHEET_NAME = 31;

/**
 * Allocates Excel-valid, workbook-unique sheet names: `[]:*?/\` become `_`, leading/trailing
 * apostrophes and blanks are dropped (Excel rejects them), empty names and the reserved `History`
 * become `Sheet`, and the result is cut to 31 characters. Clashes (case-insensitive, as in Excel)
 * get ` (2)`, ` (3)` … with the base shortened to make room.
 */
export class SheetNames {
  readonly #taken = new Set<string>();

  /** Returns a free name for `title`; `part` > 1 asks for a continuation sheet `<title> (part)`. */
  allocate(title: string, part = 1): string {
    let base = title
      .replace(/[[\]:*?/\\]/g, '_')
      .replace(CONTROL, ' ')
      .trim()
      .replace(/^'+|'+$/g, '')
      .trim();
    if (base === '' || base.toLowerCase() === 'history') base = 'Sheet';
    for (let n = part; ; n += 1) {
      const suffix = n > 1 ? ` (${n})` : '';
      const name = `${cut(base, MAX_SHEET_NAME - suffix.length)}${suffix}`;
      if (!this.#taken.has(name.toLowerCase())) {
        this.#taken.add(name.toLowerCase());
        return name;
      }
    }
  }
}

/** Cuts to `max` UTF-16 units without splitting a surrogate pair or ending on an apostrophe. */
function cut(text: string, max: number): string {
  let out = text.slice(0, max);
  if (/[\ud800-\udbff]$/.test(out)) out = out.slice(0, -1);
  return out.replace(/'+$/, '').trimEnd() || 'Sheet';
}
