/**
 * Conversions between database values and their API forms: decimals as canonical strings,
 * timestamps in UTC with milliseconds, booleans and integers from whatever the driver returns.
 */

/** Largest value of the 32-bit integer columns ids and counts live in. */
export const INT_MAX = 2147483647;

/**
 * A record id: a positive integer up to INT_MAX, given as a number or as a string of digits;
 * undefined for anything else.
 */
export function recordId(value: unknown): number | undefined {
  const id = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  return typeof id === 'number' && Number.isInteger(id) && id >= 1 && id <= INT_MAX
    ? id
    : undefined;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A decimal string in canonical form: no exponent, no leading `+`, trailing zeros trimmed but at
 * least one fraction digit (`4.00` → `4.0`, `9.230` → `9.23`, `4000` → `4000.0`). Works on the
 * digits, never through a float.
 */
export function canonicalDecimal(value: string): string {
  let text = value.trim();
  let sign = '';
  if (text.startsWith('-') || text.startsWith('+')) {
    sign = text[0] === '-' ? '-' : '';
    text = text.slice(1);
  }
  const point = text.indexOf('.');
  let whole = point === -1 ? text : text.slice(0, point);
  let fraction = point === -1 ? '' : text.slice(point + 1);
  whole = whole.replace(/^0+(?=\d)/, '') || '0';
  fraction = fraction.replace(/0+$/, '') || '0';
  if (whole === '0' && fraction === '0') sign = '';
  return `${sign}${whole}.${fraction}`;
}

/**
 * `2024-05-01 12:00:00.123` (how both databases hand back a stored UTC timestamp) →
 * `2024-05-01T12:00:00.123Z`.
 */
export function isoTimestamp(value: string | Date): string {
  if (value instanceof Date) return value.toISOString();
  const fraction = value.length > 20 ? value.slice(20, 23).padEnd(3, '0') : '000';
  return `${value.slice(0, 10)}T${value.slice(11, 19)}.${fraction}Z`;
}

/** A decimal string with up to `scale` digits after the point, no exponent, no `+`. */
export function decimalPattern(scale: number): RegExp {
  return new RegExp(`^-?\\d{1,20}(\\.\\d{1,${scale}})?$`);
}

/** Compares two decimal strings exactly: negative, zero or positive like a sort comparator. */
export function compareDecimals(a: string, b: string): number {
  const [x, y] = [scaled(a), scaled(b)];
  const scale = Math.max(x.fraction.length, y.fraction.length);
  const diff =
    BigInt(x.sign + x.whole + x.fraction.padEnd(scale, '0')) -
    BigInt(y.sign + y.whole + y.fraction.padEnd(scale, '0'));
  return diff < 0n ? -1 : diff > 0n ? 1 : 0;
}

function scaled(value: string) {
  const sign = value.startsWith('-') ? '-' : '';
  const [whole, fraction = ''] = value.replace(/^[+-]/, '').split('.');
  return { sign, whole: whole || '0', fraction };
}
