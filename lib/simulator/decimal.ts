/** Exact decimal text from integers: amounts are never produced by floating-point arithmetic. */

/** Formats an integer number of minor units (e.g. cents with `scale` 2) as a decimal string. */
export function formatUnits(units: bigint, scale: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale);
  const text = scale === 0 ? whole : `${whole}.${fraction}`;
  return negative ? `-${text}` : text;
}

/** Like `formatUnits`, without trailing fractional zeros (`0.001610` → `0.00161`, `2.000` → `2`). */
export function formatUnitsTrimmed(units: bigint, scale: number): string {
  const text = formatUnits(units, scale);
  if (!text.includes('.')) return text;
  return text.replace(/\.?0+$/, '');
}

/** Formats integer cents as a USD amount with two decimals. */
export function formatCents(cents: number): string {
  return formatUnits(BigInt(cents), 2);
}
