/**
 * Windows-1252 bytes to text, from the code page's table (Unicode's CP1252.TXT): bytes below
 * 0x80 and from 0xA0 are their own code points; 0x80–0x9F are the characters below, and the
 * five bytes the code page leaves undefined are refused. Written here because Node 20's
 * `TextDecoder('windows-1252')` decodes as ISO-8859-1 (0x80 comes out as U+0080, not €).
 */
const C1_ROW = [
  '€',
  undefined,
  '‚',
  'ƒ',
  '„',
  '…',
  '†',
  '‡',
  'ˆ',
  '‰',
  'Š',
  '‹',
  'Œ',
  undefined,
  'Ž',
  undefined,
  undefined,
  '‘',
  '’',
  '“',
  '”',
  '•',
  '–',
  '—',
  '˜',
  '™',
  'š',
  '›',
  'œ',
  undefined,
  'ž',
  'Ÿ',
];

/** Decodes `bytes`; throws at the first byte the code page does not define. */
export function decodeWindows1252(bytes: Uint8Array): string {
  let text = '';
  bytes.forEach((byte, at) => {
    if (byte < 0x80 || byte >= 0xa0) {
      text += String.fromCharCode(byte);
      return;
    }
    const char = C1_ROW[byte - 0x80];
    if (char === undefined)
      throw new Error(`byte ${at}: 0x${byte.toString(16)} is undefined in Windows-1252`);
    text += char;
  });
  return text;
}
