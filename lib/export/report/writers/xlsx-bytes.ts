/**
 * A sheet's XML as bytes, written straight into a buffer: markup from pre-encoded constants,
 * integers digit by digit, text copied from the UTF-8 bytes the main thread sent with the XML
 * escape of `xmlEncode` applied on the way (the characters it changes are all ASCII, which never
 * occur inside a multi-byte UTF-8 sequence). No string or object is made per cell but for numbers
 * that are not small integers (`String(value)`).
 */
export class XmlBytes {
  private buffer: Buffer;
  private at = 0;

  /** `size`: bytes of a chunk (a buffer grows past it for a row that needs more). */
  constructor(private readonly size: number) {
    this.buffer = Buffer.allocUnsafeSlow(size);
  }

  /** Bytes written since the last {@link take}. */
  get length(): number {
    return this.at;
  }

  /** The bytes written so far, in a buffer of their own; writing goes on in a new one. */
  take(): Buffer {
    const taken = this.buffer.subarray(0, this.at);
    this.buffer = Buffer.allocUnsafeSlow(this.size);
    this.at = 0;
    return taken;
  }

  /** Pre-encoded bytes (markup). */
  put(bytes: Uint8Array): void {
    this.room(bytes.length);
    // Markup is a few bytes: a loop copies them faster than `set` does.
    const { buffer } = this;
    let at = this.at;
    for (let i = 0; i < bytes.length; i += 1) buffer[at++] = bytes[i] as number;
    this.at = at;
  }

  /** Text that is XML already (a sheet's opening and closing markup). */
  xml(text: string): void {
    this.room(text.length * 3);
    this.at += this.buffer.write(text, this.at, 'utf8');
  }

  /** A non-negative integer's digits. */
  int(value: number): void {
    this.room(16);
    if (value === 0) {
      this.buffer[this.at++] = ZERO;
      return;
    }
    let digits = 0;
    for (let rest = value; rest > 0; rest = Math.floor(rest / 10)) digits += 1;
    let at = this.at + digits;
    this.at = at;
    for (let rest = value; rest > 0; rest = Math.floor(rest / 10)) this.buffer[--at] = ZERO + (rest % 10);
  }

  /** A number as JavaScript prints it (`${value}`). */
  number(value: number): void {
    if (Number.isInteger(value) && value >= 0 && value <= MAX_DIGITS_INT) this.int(value);
    else this.ascii(String(value));
  }

  /**
   * `bytes[from, to)`, UTF-8 text, as XML text: `"&'<>` as entities, the C0 controls but tab, LF
   * and CR, and DEL, dropped (what `xmlEncode` does to the same text).
   */
  text(bytes: Uint8Array, from: number, to: number): void {
    this.room((to - from) * LONGEST_ENTITY);
    const { buffer } = this;
    let at = this.at;
    for (let i = from; i < to; i += 1) {
      const byte = bytes[i] as number;
      const replaced = ESCAPES[byte] as number;
      if (replaced === 0) buffer[at++] = byte;
      else if (replaced > 1) {
        const entity = ENTITIES[replaced] as Uint8Array;
        buffer.set(entity, at);
        at += entity.length;
      }
    }
    this.at = at;
  }

  /** A short ASCII string (a number printed). */
  private ascii(text: string): void {
    this.room(text.length);
    for (let i = 0; i < text.length; i += 1) this.buffer[this.at++] = text.charCodeAt(i);
  }

  /** Makes room for `bytes` more bytes. */
  private room(bytes: number): void {
    if (this.at + bytes <= this.buffer.length) return;
    const grown = Buffer.allocUnsafeSlow(Math.max(this.buffer.length * 2, this.at + bytes));
    this.buffer.copy(grown, 0, 0, this.at);
    this.buffer = grown;
  }
}

/** Pre-encodes markup. */
export function ascii(text: string): Uint8Array {
  return Buffer.from(text, 'latin1');
}

const ZERO = 0x30;
/** Integers up to here are written digit by digit (exactly as `String` prints them). */
const MAX_DIGITS_INT = 1e15;
/** `&quot;`, the longest replacement of a byte. */
const LONGEST_ENTITY = 6;

/** Per byte: 0 copied, 1 dropped, else the index of its entity in {@link ENTITIES}. */
const ESCAPES = new Uint8Array(256);
const ENTITIES: Uint8Array[] = [new Uint8Array(0), new Uint8Array(0)];
for (const [byte, entity] of [
  [0x22, '&quot;'],
  [0x26, '&amp;'],
  [0x27, '&apos;'],
  [0x3c, '&lt;'],
  [0x3e, '&gt;'],
] as const) {
  ESCAPES[byte] = ENTITIES.length;
  ENTITIES.push(ascii(entity));
}
for (let byte = 0; byte < 0x20; byte += 1) {
  if (byte !== 0x09 && byte !== 0x0a && byte !== 0x0d) ESCAPES[byte] = 1;
}
ESCAPES[0x7f] = 1;
