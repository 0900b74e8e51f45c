import { describe, expect, it } from 'vitest';
import { lookupProfile, monthlyProfiles, parseProfileRegistry } from './registry.ts';

const ARN = 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:pbs/acme-AbCdEf';

describe('parseProfileRegistry', () => {
  it('returns the registry with monthly defaulting to false', () => {
    expect(
      parseProfileRegistry(JSON.stringify({ acme: { secretArn: ARN, timeZone: 'Europe/Berlin' } })),
    ).toEqual({
      acme: { secretArn: ARN, timeZone: 'Europe/Berlin', monthly: false },
    });
  });

  it('names the entry with an invalid time zone', () => {
    expect(() =>
      parseProfileRegistry(JSON.stringify({ acme: { secretArn: ARN, timeZone: 'Mars/Base' } })),
    ).toThrow(/^acme\.timeZone: expected an IANA time zone$/);
  });

  it('names the entry whose secret is not a Secrets Manager ARN', () => {
    expect(() =>
      parseProfileRegistry(JSON.stringify({ acme: { secretArn: 'pbs/acme', timeZone: 'UTC' } })),
    ).toThrow(/^acme\.secretArn:/);
  });

  it('rejects text that is not JSON', () => {
    expect(() => parseProfileRegistry('{acme')).toThrow('is not valid JSON');
  });
});

describe('lookupProfile', () => {
  it('throws UnknownProfileError naming profile for an unregistered name', () => {
    expect(() => lookupProfile({}, 'acme')).toThrow(
      expect.objectContaining({ name: 'UnknownProfileError', field: 'profile' }),
    );
  });

  it('does not treat an inherited property as a profile', () => {
    expect(() => lookupProfile({}, 'constructor')).toThrow(
      expect.objectContaining({ name: 'UnknownProfileError' }),
    );
  });
});

describe('monthlyProfiles', () => {
  it('returns the monthly profiles sorted by name', () => {
    const entry = { secretArn: ARN, timeZone: 'UTC' };
    const registry = {
      b: { ...entry, monthly: true },
      c: { ...entry, monthly: false },
      a: { ...entry, monthly: true },
    };

    expect(monthlyProfiles(registry)).toEqual(['a', 'b']);
  });
});
