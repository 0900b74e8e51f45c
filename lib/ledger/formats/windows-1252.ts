/**
 * Text to Windows-1252 bytes, the character set DATEV reads by default (ISO-8859-1 / code page
 * 1252). A character the code page has no byte for becomes `?`.
 */

/** Code page 1252's characters in 0x80–0x9F that are not the Unicode code point of the byte. */
const HIGH: ReadonlyMap<number, number> = new Map([
  [0x20ac, 0x80],
  [0x201a, 0x82],
  [0x0192, 0x83],
  [0x201e, 0x84],
  [0x2026, 0x85],
  [0x2020, 0x86],
  [0x2021, 0x87],
  [0x02c6, 0x88],
  [0x2030, 0x89],
  [0x0160, 0x8a],
  [0x2039, 0x8b],
  [0x0152, 0x8c],
  [0x017d, 0x8e],
  [0x2018, 0x91],
  [0x2019, 0x92],
  [0x201c, 0x93],
  [0x201d, 0x94],
  [0x2022, 0x95],
  [0x2013, 0x96],
  [0x2014, 0x97],
  [0x02dc, 0x98],
  [0x2122, 0x99],
  [0x0161, 0x9a],
  [0x203a, 0x9b],
  [0x0153, 0x9c],
  [0x017e, 0x9e],
  [0x0178, 0x9f],
]);

const QUESTION_MARK = 0x3f;

/** `text` as Windows-1252 bytes; unmappable characters (emoji, CJK, …) become `?`. */
export function encodeWindows1252(text: string): Uint8Array {
  const bytes: number[] = [];
  for (const char of text) {
    const point = char.codePointAt(0) as number;
    // 0x80–0x9F are C1 controls in Unicode but other characters in the code page.
    if (point < 0x80 || (point >= 0xa0 && point <= 0xff)) bytes.push(point);
    else bytes.push(HIGH.get(point) ?? QUESTION_MARK);
  }
  return Uint8Array.from(bytes);
}
