/**
 * CRC-32 (ISO-HDLC, the zip format's checksum: polynomial 0xEDB88320 reflected), eight bytes a
 * step ("slicing by 8"). Node 20 has no `zlib.crc32`; archiver computed it in JavaScript too.
 */

/** TABLES[k][b]: the CRC of byte b followed by k zero bytes. */
const TABLES = makeTables();

function makeTables(): Int32Array[] {
  const tables = Array.from({ length: 8 }, () => new Int32Array(256));
  const first = tables[0] as Int32Array;
  for (let b = 0; b < 256; b += 1) {
    let c = b;
    for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    first[b] = c;
  }
  for (let k = 1; k < 8; k += 1) {
    const previous = tables[k - 1] as Int32Array;
    const table = tables[k] as Int32Array;
    for (let b = 0; b < 256; b += 1) {
      const c = previous[b] as number;
      table[b] = (c >>> 8) ^ (first[c & 0xff] as number);
    }
  }
  return tables;
}

/**
 * The CRC-32 of `bytes` continued from `crc`, the CRC of the bytes before them (0 for none), as an
 * unsigned 32-bit number.
 */
export function crc32(bytes: Uint8Array, crc = 0): number {
  const [t0, t1, t2, t3, t4, t5, t6, t7] = TABLES as [
    Int32Array,
    Int32Array,
    Int32Array,
    Int32Array,
    Int32Array,
    Int32Array,
    Int32Array,
    Int32Array,
  ];
  let c = ~crc;
  let i = 0;
  const end8 = bytes.length - 7;
  for (; i < end8; i += 8) {
    const a =
      c ^
      ((bytes[i] as number) |
        ((bytes[i + 1] as number) << 8) |
        ((bytes[i + 2] as number) << 16) |
        ((bytes[i + 3] as number) << 24));
    c =
      (t7[a & 0xff] as number) ^
      (t6[(a >>> 8) & 0xff] as number) ^
      (t5[(a >>> 16) & 0xff] as number) ^
      (t4[a >>> 24] as number) ^
      (t3[bytes[i + 4] as number] as number) ^
      (t2[bytes[i + 5] as number] as number) ^
      (t1[bytes[i + 6] as number] as number) ^
      (t0[bytes[i + 7] as number] as number);
  }
  for (; i < bytes.length; i += 1) c = (c >>> 8) ^ (t0[(c ^ (bytes[i] as number)) & 0xff] as number);
  return ~c >>> 0;
}
