import { describe, expect, it } from 'vitest';
import { parseExportRequest } from '../export/index.ts';
import { inCliWords } from './messages.ts';
import { closestFlag } from './suggest.ts';

/** The message `parseExportRequest` refuses `input` with, in the CLI's words. */
function cliMessage(input: Record<string, unknown>): string {
  try {
    parseExportRequest(input);
  } catch (error) {
    return (inCliWords(error, input) as Error).message;
  }
  throw new Error('expected a refusal');
}

describe('inCliWords', () => {
  it('names the flag of each field, and the value at fault of a repeated flag', () => {
    expect(
      cliMessage({ profile: 'demo', period: '2024', timeZone: 'X/Y', filters: { tokens: ['ETH', ''] } }),
    ).toBe('--time-zone: expected an IANA time zone such as "Europe/Berlin"; --token "": must not be empty');
  });

  it('says a missing --period is required', () => {
    expect(cliMessage({ profile: 'demo' })).toMatch(/^--period: is required: a month/);
  });

  it('words a reason that quotes other fields in flags', () => {
    expect(
      cliMessage({ profile: 'demo', period: '2024', csv: { delimiter: ',', decimalSeparator: ',' } }),
    ).toBe('--decimal-separator: --delimiter and --decimal-separator must differ');
  });

  it('leaves the request field paths to the other callers (the HTTP API)', () => {
    expect(() => parseExportRequest({ profile: 'demo', period: '2024', reports: ['foo'] })).toThrow(
      /^reports\[0\]: /,
    );
  });
});

describe('closestFlag', () => {
  const known = ['profile', 'period', 'time-zone', 'report'];

  it.each([
    ['--profil', '--profile'],
    ['--perod', '--period'],
    ['--reports', '--report'],
    ['--time-zome=UTC', '--time-zone'],
    ['--colour', undefined],
    ['--p', undefined],
  ])('suggests for %s: %s', (given, expected) => {
    expect(closestFlag(given, known)).toBe(expected);
  });
});
