import { describe, expect, it } from 'vitest';
import { callerName, mayUse, parseProfilesClaim, profileAccess } from './authorization.ts';
import type { ApiEvent } from './errors.ts';

function eventWith(authorizer: unknown): ApiEvent {
  return { requestContext: { authorizer } } as unknown as ApiEvent;
}

describe('parseProfilesClaim', () => {
  it.each([
    [
      ['acme', 'demo'],
      ['acme', 'demo'],
    ],
    ['acme demo', ['acme', 'demo']],
    ['acme,demo', ['acme', 'demo']],
    [' acme ,  demo ', ['acme', 'demo']],
    ['[acme demo]', ['acme', 'demo']],
    ['["acme","demo"]', ['acme', 'demo']],
    ['acme acme', ['acme']],
    ['', []],
    [42, []],
    [{ acme: true }, []],
    [null, []],
  ])('returns the names of %j', (value, names) => {
    expect(parseProfilesClaim(value)).toEqual(names);
  });
});

describe('profileAccess', () => {
  it('returns every profile when no claim is configured', () => {
    expect(profileAccess(eventWith(undefined), undefined)).toEqual({ all: true });
  });

  it('returns the listed profiles of the configured claim', () => {
    const access = profileAccess(eventWith({ jwt: { claims: { groups: 'acme demo' } } }), 'groups');
    expect([mayUse(access, 'acme'), mayUse(access, 'demo'), mayUse(access, 'empty')]).toEqual([
      true,
      true,
      false,
    ]);
  });

  it('returns every profile for the claim value *', () => {
    expect(profileAccess(eventWith({ jwt: { claims: { groups: '*' } } }), 'groups')).toEqual({ all: true });
  });

  it('returns no profile when the event has no JWT claims', () => {
    const access = profileAccess(eventWith({ iam: { userArn: 'arn:aws:iam::1:user/x' } }), 'groups');
    expect(mayUse(access, 'acme')).toBe(false);
  });

  it('does not read a claim inherited from the object prototype', () => {
    const access = profileAccess(eventWith({ jwt: { claims: {} } }), 'constructor');
    expect(access).toEqual({ all: false, profiles: new Set() });
  });
});

describe('callerName', () => {
  it('returns the email of verified JWT claims before the user name and the subject', () => {
    const claims = { sub: 'a1b2', 'cognito:username': 'alice', email: 'alice@example.com' };
    expect(callerName(eventWith({ jwt: { claims } }))).toBe('alice@example.com');
    expect(callerName(eventWith({ jwt: { claims: { sub: 'a1b2', 'cognito:username': 'alice' } } }))).toBe(
      'alice',
    );
    expect(callerName(eventWith({ jwt: { claims: { sub: 'a1b2', email: '  ' } } }))).toBe('a1b2');
  });

  it("returns an IAM caller's ARN, and nothing when no authorizer vouched for the caller", () => {
    const userArn = 'arn:aws:iam::123456789012:user/ops';
    expect(callerName(eventWith({ iam: { userArn } }))).toBe(userArn);
    expect(callerName(eventWith(undefined))).toBeUndefined();
    expect(callerName(undefined)).toBeUndefined();
  });

  it('drops control characters and keeps at most 200 characters of a claim', () => {
    expect(callerName(eventWith({ jwt: { claims: { email: 'eve\r\n@example.com\u0000' } } }))).toBe(
      'eve@example.com',
    );
    expect(callerName(eventWith({ jwt: { claims: { sub: 'x'.repeat(500) } } }))?.length).toBe(200);
  });
});
