/**
 * The little reading the published rate files need beyond their CSV records (read by csv-parse,
 * `lib/csv-records.ts`): the elements of a flat XML document (the ECB's and HMRC's files: no
 * mixed content, no CDATA), rates and days as written. Reading stays pure: no disk, no network.
 */
import { parseDecimal, signDecimal } from '../domain/index.ts';

/** One element of a flat XML document: its name (prefix kept), attributes and text. */
export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  /** The text directly inside it (entities decoded), for an element without children. */
  text: string;
  /** Names of the open elements around it, outermost first. */
  path: readonly string[];
}

const TAG = /<(\/?)([A-Za-z_][\w:.-]*)((?:\s+[\w:.-]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>/g;
const ATTRIBUTE = /([\w:.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;

/**
 * Every element of `xml` in document order, with its attributes and text; comments, processing
 * instructions and the declaration are skipped. Throws on a closing tag that does not match.
 */
export function xmlElements(xml: string): XmlElement[] {
  const body = xml
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<\?[\s\S]*?\?>/g, '')
    .replace(/<!DOCTYPE[^>]*>/gi, '');
  const elements: XmlElement[] = [];
  const open: { element: XmlElement; textFrom: number }[] = [];
  for (const match of body.matchAll(TAG)) {
    const [whole, closing, name, attributeText, selfClosing] = match as unknown as [
      string,
      string,
      string,
      string,
      string,
    ];
    const at = match.index ?? 0;
    if (closing === '/') {
      const top = open.pop();
      if (top === undefined || top.element.name !== name)
        throw new Error(`</${name}> does not close ${top ? `<${top.element.name}>` : 'any element'}`);
      top.element.text = decodeEntities(body.slice(top.textFrom, at)).trim();
      continue;
    }
    const attributes: Record<string, string> = {};
    for (const attribute of (attributeText ?? '').matchAll(ATTRIBUTE)) {
      attributes[attribute[1] as string] = decodeEntities(attribute[2] ?? attribute[3] ?? '');
    }
    const element: XmlElement = { name, attributes, text: '', path: open.map((o) => o.element.name) };
    elements.push(element);
    if (selfClosing !== '/') open.push({ element, textFrom: at + whole.length });
  }
  if (open.length > 0) throw new Error(`<${open[open.length - 1]?.element.name}> is not closed`);
  return elements;
}

function decodeEntities(text: string): string {
  return text.replace(/&(lt|gt|amp|quot|apos|#\d+|#x[0-9a-fA-F]+);/g, (_, entity: string) => {
    if (entity === 'lt') return '<';
    if (entity === 'gt') return '>';
    if (entity === 'amp') return '&';
    if (entity === 'quot') return '"';
    if (entity === 'apos') return "'";
    const code = entity.startsWith('#x') ? Number.parseInt(entity.slice(2), 16) : Number(entity.slice(1));
    return String.fromCodePoint(code);
  });
}

/** A published rate: a positive plain decimal, kept as written; else `null`. */
export function rateText(text: string): string | null {
  const trimmed = text.trim();
  if (!/^\d+(\.\d+)?$/.test(trimmed)) return null;
  const parsed = parseDecimal(trimmed);
  return parsed !== null && signDecimal(parsed) > 0 ? parsed : null;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/**
 * A calendar day as the files write it, to `YYYY-MM-DD`: `2024-01-31`, `31/Jan/2024` (HMRC),
 * `31/01/2024`, `31 January 2024` (the ECB's daily CSV). `null` when not a real day.
 */
export function dayText(text: string): string | null {
  const parts = dayParts(text.trim());
  if (parts === null) return null;
  const [year, month, day] = parts;
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day)
    return null;
  return date.toISOString().slice(0, 10);
}

/** Year, month (1–12) and day of the forms {@link dayText} reads, not yet checked to exist. */
function dayParts(t: string): [number, number, number] | null {
  const iso = /^(\d{4})-(\d{2})-(\d{2})$/.exec(t);
  if (iso) return [Number(iso[1]), Number(iso[2]), Number(iso[3])];
  const named = /^(\d{1,2})[/ ]([A-Za-z]+)[/ ](\d{4})$/.exec(t);
  if (named) {
    const name = (named[2] as string).toLowerCase();
    const month = MONTHS.indexOf(name.slice(0, 3)) + 1;
    if (month === 0 || (name.length > 3 && !isMonthName(name))) return null;
    return [Number(named[3]), month, Number(named[1])];
  }
  const numeric = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(t);
  if (numeric) return [Number(numeric[3]), Number(numeric[2]), Number(numeric[1])];
  return null;
}

function isMonthName(name: string): boolean {
  const full = [
    'january',
    'february',
    'march',
    'april',
    'may',
    'june',
    'july',
    'august',
    'september',
    'october',
    'november',
    'december',
  ];
  return full.includes(name.toLowerCase());
}
