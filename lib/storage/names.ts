import { ValidationError } from '../errors.ts';

/** Refuses what could escape a sink's root or be read differently on another system. */
function problemOf(value: string, allowTrailingSlash: boolean): string | undefined {
  if (value.includes('\0')) return 'contains a NUL character';
  if (value.includes('\\')) return 'contains a backslash';
  if (value.startsWith('/')) return 'is an absolute path';
  if (/^[A-Za-z]:/.test(value)) return 'starts with a drive letter';
  const segments = value.split('/');
  if (allowTrailingSlash && segments.length > 1 && segments.at(-1) === '') segments.pop();
  for (const segment of segments) {
    if (segment === '..') return "contains a '..' segment";
    if (segment === '.') return "contains a '.' segment";
    if (segment === '') return 'contains an empty segment';
    if (isPartialSegment(segment)) return 'looks like an unfinished temporary file';
    if (isStagingSegment(segment)) return "looks like a run's staging folder";
  }
  return undefined;
}

/** True for the temporary names the local sink writes before renaming (`.<file>.partial-<id>`). */
export function isPartialSegment(segment: string): boolean {
  return /^\..*\.partial-[0-9a-f]+$/.test(segment);
}

/**
 * True for the hidden folders the local sink builds a set in before renaming it into place
 * (`.<folder>.staging-<host>-<pid>-<random>`).
 */
export function isStagingSegment(segment: string): boolean {
  return /^\..+\.staging-[0-9a-f]{8}-\d{1,10}-[A-Za-z0-9]{6}$/.test(segment);
}

/**
 * Checks an object name: a non-empty relative path with `/` separators and no `.`, `..` or empty
 * segments, backslashes, NUL or drive letters.
 *
 * @throws ValidationError naming `name` and the reason.
 */
export function assertObjectName(name: string): void {
  const problem = name === '' ? 'is empty' : problemOf(name, false);
  if (problem !== undefined) throw new ValidationError('name', `${JSON.stringify(name)} ${problem}`);
}

/**
 * Checks a listing prefix: empty, or a relative path as for {@link assertObjectName} that may end
 * with `/`.
 *
 * @throws ValidationError naming `prefix` and the reason.
 */
export function assertListPrefix(prefix: string): void {
  const problem = prefix === '' ? undefined : problemOf(prefix, true);
  if (problem !== undefined) throw new ValidationError('prefix', `${JSON.stringify(prefix)} ${problem}`);
}
