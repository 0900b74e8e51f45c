import { afterEach, describe, expect, it } from 'vitest';
import { ValidationError } from '../errors.ts';
import { resolveConfig } from './config.ts';
import { DEFAULT_INSTANT_READING, type InstantReading, readBound, readInstant } from './instant.ts';

const utcWallClock: InstantReading = { offsetlessZone: 'UTC', epochUnit: 'milliseconds' };
const seconds: InstantReading = { offsetlessZone: null, epochUnit: 'seconds' };
const iso = (result: ReturnType<typeof readInstant>) =>
  result.ok ? new Date(result.ms).toISOString() : `refused: ${result.reason}`;

describe('readInstant', () => {
  const zone = process.env.TZ;
  afterEach(() => {
    if (zone === undefined) delete process.env.TZ;
    else process.env.TZ = zone;
  });

  it('returns the instant of ISO text with Z, with an offset, and with more than 3 fraction digits', () => {
    expect(
      ['2025-10-31T23:30:00.500Z', '2025-11-01T00:30:00.5+01:00', '2025-10-31T23:30:00.500999Z'].map((text) =>
        iso(readInstant(text)),
      ),
    ).toEqual(['2025-10-31T23:30:00.500Z', '2025-10-31T23:30:00.500Z', '2025-10-31T23:30:00.500Z']);
  });

  it('refuses offset-less text by default, naming the setting', () => {
    expect(iso(readInstant('2025-10-31T22:00:00'))).toMatch(/has no offset.*shape\.instants\.offsetlessZone/);
  });

  it('returns offset-less text in the configured zone, whatever the machine zone', () => {
    process.env.TZ = 'America/New_York';
    expect(iso(readInstant('2025-10-31T22:00:00', utcWallClock))).toBe('2025-10-31T22:00:00.000Z');
    expect(
      iso(readInstant('2025-10-31T22:00:00', { offsetlessZone: 'Europe/Berlin', epochUnit: 'milliseconds' })),
    ).toBe('2025-10-31T21:00:00.000Z');
  });

  it('returns epoch milliseconds, and epoch seconds when configured', () => {
    expect(iso(readInstant(1_761_953_400_500))).toBe('2025-10-31T23:30:00.500Z');
    expect(iso(readInstant(1_761_953_400.5, seconds))).toBe('2025-10-31T23:30:00.500Z');
  });

  it('refuses epoch seconds read as milliseconds, and milliseconds read as seconds, naming the other unit', () => {
    expect(iso(readInstant(1_761_953_400))).toMatch(/1970-01-21.*implausible.*epochUnit to "seconds"/);
    expect(iso(readInstant(1_761_953_400_500, seconds))).toMatch(/implausible.*epochUnit to "milliseconds"/);
  });

  it('refuses calendar dates, other text and other types', () => {
    expect([readInstant('2025-10-31'), readInstant('31 Oct 2025'), readInstant(true)].map(iso)).toEqual([
      'refused: "2025-10-31" is a calendar date, not an instant',
      'refused: "31 Oct 2025" is not an ISO-8601 instant',
      'refused: expected an ISO-8601 instant or an epoch number',
    ]);
  });
});

describe('readBound', () => {
  it('returns a calendar date as its whole day in every zone when no zone is configured', () => {
    const bound = readBound('2025-10-31');
    expect(bound.ok && [new Date(bound.first).toISOString(), new Date(bound.last).toISOString()]).toEqual([
      '2025-10-30T10:00:00.000Z',
      '2025-11-01T11:59:59.999Z',
    ]);
  });

  it('returns a calendar date as its day in the configured zone', () => {
    const bound = readBound('2025-10-31', { ...DEFAULT_INSTANT_READING, offsetlessZone: 'UTC' });
    expect(bound.ok && [new Date(bound.first).toISOString(), new Date(bound.last).toISOString()]).toEqual([
      '2025-10-31T00:00:00.000Z',
      '2025-10-31T23:59:59.999Z',
    ]);
  });
});

describe('resolveConfig instants', () => {
  const base = { baseUrl: 'https://pbs.example.com', credentials: { apiKey: 'k', apiSecret: 's' } };

  it('throws ValidationError naming shape.instants.offsetlessZone for a zone that does not exist', () => {
    expect(() => resolveConfig({ ...base, shape: { instants: { offsetlessZone: 'Mars/Olympus' } } })).toThrow(
      new ValidationError('shape.instants.offsetlessZone', '"Mars/Olympus" is not an IANA time zone'),
    );
  });

  it('returns the configured reading in the field map, so every stage reads dates alike', () => {
    const config = resolveConfig({ ...base, shape: { instants: { epochUnit: 'seconds' } } });
    expect(config.shape.fields.instants).toEqual({ offsetlessZone: null, epochUnit: 'seconds' });
  });
});
