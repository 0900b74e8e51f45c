import { describe, expect, it } from 'vitest';
import { ENV } from './env.ts';
import { createRuntime } from './runtime.ts';

const PROFILES = JSON.stringify({
  acme: {
    secretArn: 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:pbs/acme-AbCdEf',
    timeZone: 'UTC',
  },
});
const FULL = {
  AWS_REGION: 'eu-central-1',
  [ENV.bucket]: 'reports-bucket',
  [ENV.profiles]: PROFILES,
  [ENV.exportStateMachineArn]: 'arn:aws:states:eu-central-1:123456789012:stateMachine:pbs-export',
  [ENV.baseUrl]: 'https://pbs.example.com/api',
  [ENV.publicBaseUrl]: 'https://abc123.execute-api.eu-central-1.amazonaws.com/',
};

describe('createRuntime', () => {
  it('builds the API context without a service URL', () => {
    const { [ENV.baseUrl]: _unused, ...env } = FULL;

    expect(createRuntime(env).apiContext()).toMatchObject({
      bucket: 'reports-bucket',
      linkExpirySeconds: 3600,
    });
  });

  it('builds the adjustments store, so the adjustments routes do not answer 501', () => {
    const store = createRuntime(FULL).apiContext().adjustments;

    expect([typeof store?.latest, typeof store?.get, typeof store?.put]).toEqual([
      'function',
      'function',
      'function',
    ]);
  });

  it('builds status URLs from PBS_PUBLIC_BASE_URL, without its trailing slash', () => {
    expect(createRuntime(FULL).apiContext().publicBaseUrl).toBe(
      'https://abc123.execute-api.eu-central-1.amazonaws.com',
    );
  });

  it.each([
    ['missing', undefined],
    ['not a URL', 'abc123.execute-api.eu-central-1.amazonaws.com'],
    ['with a query', 'https://api.example.com/?x=1'],
  ])('throws ConfigError naming PBS_PUBLIC_BASE_URL when it is %s', (_case, value) => {
    const { [ENV.publicBaseUrl]: _unused, ...env } = FULL;

    expect(() =>
      createRuntime(value === undefined ? env : { ...env, [ENV.publicBaseUrl]: value }).apiContext(),
    ).toThrow(expect.objectContaining({ name: 'ConfigError', variable: 'PBS_PUBLIC_BASE_URL' }));
  });

  it('throws ConfigError naming PBS_BUCKET when it is missing', () => {
    const { [ENV.bucket]: _unused, ...env } = FULL;

    expect(() => createRuntime(env).workerContext()).toThrow(
      expect.objectContaining({ name: 'ConfigError', variable: 'PBS_BUCKET' }),
    );
  });

  it('throws ConfigError naming PBS_PROFILES when it is not valid', () => {
    expect(() => createRuntime({ ...FULL, [ENV.profiles]: '{"acme":{}}' }).monthlyContext()).toThrow(
      /^PBS_PROFILES: acme\.secretArn:/,
    );
  });

  it('throws ConfigError naming PBS_LINK_EXPIRY_SECONDS beyond 7 days', () => {
    expect(() => createRuntime({ ...FULL, [ENV.linkExpirySeconds]: '604801' }).apiContext()).toThrow(
      expect.objectContaining({ variable: 'PBS_LINK_EXPIRY_SECONDS' }),
    );
  });

  it('throws ConfigError naming PBS_SERVICE_SHAPE when the shape is invalid', () => {
    expect(() =>
      createRuntime({ ...FULL, [ENV.serviceShape]: '{"pagination":{"style":"pages"}}' }).workerContext(),
    ).toThrow(expect.objectContaining({ variable: 'PBS_SERVICE_SHAPE' }));
  });

  it('passes the profiles claim to the API context', () => {
    expect(createRuntime({ ...FULL, [ENV.profilesClaim]: 'custom:pbs_profiles' }).apiContext()).toMatchObject(
      {
        profilesClaim: 'custom:pbs_profiles',
      },
    );
  });

  it('builds an API context without a profiles claim when none is set', () => {
    expect(createRuntime(FULL).apiContext().profilesClaim).toBeUndefined();
  });

  it('throws ConfigError naming PBS_PROFILES_CLAIM when it holds a space', () => {
    expect(() => createRuntime({ ...FULL, [ENV.profilesClaim]: 'pbs profiles' }).apiContext()).toThrow(
      expect.objectContaining({ name: 'ConfigError', variable: 'PBS_PROFILES_CLAIM' }),
    );
  });

  it('builds a tracer that is disabled outside Lambda', () => {
    expect(createRuntime(FULL).obs.tracer.isTracingEnabled()).toBe(false);
  });
});
