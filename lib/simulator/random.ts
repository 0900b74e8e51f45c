/**
 * Seeded, allocation-light random sources. Everything the simulator generates is a pure function
 * of (seed, profile, index), so transaction `i` can be rebuilt on its own at any time.
 */

/** Murmur3's 32-bit finaliser: a cheap avalanche of one 32-bit word. */
export function mix32(value: number): number {
  let h = value >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Hashes a few non-negative integers (each below 2^32) into one uint32. */
export function hash32(a: number, b: number, c = 0): number {
  let h = mix32(a ^ 0x9e3779b9);
  h = mix32((h + Math.imul(b >>> 0, 0x27d4eb2f)) >>> 0);
  h = mix32((h ^ Math.imul(c >>> 0, 0x165667b1)) >>> 0);
  return h;
}

/** FNV-1a hash of a string, as a uint32. */
export function stringHash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** A small seeded generator (mulberry32). Not cryptographic; reproducible from its seed. */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Next uint32. */
  u32(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.u32() / 4294967296;
  }

  /** Uniform integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new RangeError('pick from an empty list');
    return item;
  }

  /** `length` lowercase hexadecimal characters. */
  hex(length: number): string {
    let out = '';
    while (out.length < length) out += this.u32().toString(16).padStart(8, '0');
    return out.slice(0, length);
  }
}

/** A GUID (8-4-4-4-12 lowercase hex, version 4 layout) drawn from `rng`. */
export function guid(rng: Rng): string {
  const h = rng.hex(32).split('');
  h[12] = '4';
  h[16] = '89ab'[Number.parseInt(h[16] ?? '0', 16) & 3] ?? '8';
  const s = h.join('');
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
}
