import { describe, expect, it } from 'vitest';
import { monthlyProfiles, parsePbsConfig, scheduledProfiles } from '../../infra/config.ts';
import { PbsConfigError } from '../../infra/errors.ts';
import { ENV, readEnv } from '../../lib/lambda/index.ts';
import { parseServiceSettings } from '../../lib/settings.ts';
import { cdkJsonContext, secretArn, TEST_CONFIG } from './support.ts';

const minimal = {
  profiles: { demo: { secretArn: secretArn('demo'), timeZone: 'UTC' } },
  baseUrl: 'https://pbs.example.com',
};

describe('parsePbsConfig', () => {
  it('returns the defaults for every optional field', () => {
    expect(parsePbsConfig(minimal)).toEqual({
      profiles: { demo: { secretArn: secretArn('demo'), timeZone: 'UTC', monthly: false } },
      baseUrl: 'https://pbs.example.com',
      scheduleTimeZone: 'UTC',
      scheduleCron: 'cron(30 0 1 * ? *)',
      workRetentionDays: 7,
      jobRetentionDays: 90,
      noncurrentVersionRetentionDays: 30,
      logRetentionDays: 30,
      monthlyMaxConcurrency: 10,
      exportMapConcurrency: 4,
      requestsPerSecond: 4,
      secretMaxAgeSeconds: 300,
      linkExpirySeconds: 3600,
      portal: { enabled: true, subscribers: {} },
      rates: {
        ecbUrl: 'https://www.ecb.europa.eu/stats/eurofxref/eurofxref-hist.zip',
        hmrcUrl:
          'https://www.trade-tariff.service.gov.uk/api/v2/exchange_rates/files/monthly_xml_{month}.xml',
        scheduleCron: 'cron(30 17 * * ? *)',
        scheduleTimeZone: 'Europe/Berlin',
      },
    });
  });

  it('refuses an HMRC rates URL without {month}, naming the field', () => {
    expect(() => parsePbsConfig({ ...minimal, rates: { hmrcUrl: 'https://example.com/rates.xml' } })).toThrow(
      'pbs.rates.hmrcUrl: expected a URL with {month} where the month goes',
    );
  });

  it('refuses portal subscribers of a profile that is not registered, and an invalid address', () => {
    expect(() =>
      parsePbsConfig({ ...minimal, portal: { subscribers: { acme: ['a@example.com'] } } }),
    ).toThrow('pbs.portal.subscribers.acme: not a registered profile');
    expect(() =>
      parsePbsConfig({ ...minimal, portal: { subscribers: { demo: ['not-an-address'] } } }),
    ).toThrow('pbs.portal.subscribers.demo.0');
  });

  it('returns the config given as a JSON string, as -c pbs=… passes it', () => {
    expect(parsePbsConfig(JSON.stringify(TEST_CONFIG)).scheduleCron).toBe('cron(15 2 1 * ? *)');
  });

  it('returns the sample config of cdk.json', () => {
    expect(Object.keys(parsePbsConfig(cdkJsonContext().pbs).profiles)).toEqual(['demo']);
  });

  it('accepts secret ARNs with the partition, region and account placeholders', () => {
    const arn =
      // biome-ignore lint/suspicious/noTemplateCurlyInString: CloudFormation Fn::Sub placeholders, not a JS template.
      'arn:${AWS::Partition}:secretsmanager:${AWS::Region}:${AWS::AccountId}:secret:pbs/demo-AbCdEf';
    const config = parsePbsConfig({ ...minimal, profiles: { demo: { secretArn: arn, timeZone: 'UTC' } } });
    expect(config.profiles.demo?.secretArn).toBe(arn);
  });

  it('rejects a missing config with the context key to set', () => {
    expect(() => parsePbsConfig(undefined)).toThrow(/context "pbs" is missing/);
  });

  it('rejects a secret ARN without its 6-character suffix, naming the field', () => {
    const profiles = {
      demo: {
        secretArn: 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:pbs/demo',
        timeZone: 'UTC',
      },
    };
    expect(() => parsePbsConfig({ ...minimal, profiles })).toThrow(
      /pbs\.profiles\.demo\.secretArn: expected the full ARN/,
    );
  });

  it('rejects an unknown time zone of the schedule', () => {
    expect(() => parsePbsConfig({ ...minimal, scheduleTimeZone: 'Mars/Olympus' })).toThrow(
      /pbs\.scheduleTimeZone: expected an IANA time zone/,
    );
  });

  it('rejects a config without any profile', () => {
    expect(() => parsePbsConfig({ ...minimal, profiles: {} })).toThrow(/register at least one profile/);
  });

  it('rejects a plain-http service URL', () => {
    expect(() => parsePbsConfig({ ...minimal, baseUrl: 'http://pbs.example.com' })).toThrow(PbsConfigError);
  });

  it.each([
    ['plain http', 'http://reports.example.com'],
    ['with a query', 'https://reports.example.com/?x=1'],
  ])('rejects a public base URL %s, naming pbs.publicBaseUrl', (_case, publicBaseUrl) => {
    expect(() => parsePbsConfig({ ...minimal, publicBaseUrl })).toThrow(/pbs\.publicBaseUrl: /);
  });

  it('rejects a shard concurrency and request rate above the service limit of one key', () => {
    expect(() => parsePbsConfig({ ...minimal, exportMapConcurrency: 5, requestsPerSecond: 5 })).toThrow(
      /exportMapConcurrency × requestsPerSecond must not exceed the service's 20 requests\/s per key/,
    );
  });

  it('rejects a schedule that fires while it is still the previous month in a monthly profile zone', () => {
    const profiles = { ny: { secretArn: secretArn('ny'), timeZone: 'America/New_York', monthly: true } };
    expect(() => parsePbsConfig({ ...minimal, profiles, scheduleCron: 'cron(30 0 1 * ? *)' })).toThrow(
      /pbs\.profiles\.ny\.timeZone: the schedule fires at 2027-01-01T00:30:00\.000Z, still 2026-12-31 19:30 in America\/New_York/,
    );
  });

  it('accepts a schedule at noon UTC on the 1st for zones on both sides of UTC', () => {
    const profiles = {
      ny: { secretArn: secretArn('ny'), timeZone: 'America/New_York', monthly: true },
      kiritimati: { secretArn: secretArn('kiritimati'), timeZone: 'Pacific/Kiritimati', monthly: true },
    };
    expect(parsePbsConfig({ ...minimal, profiles, scheduleCron: 'cron(0 12 1 * ? *)' }).scheduleCron).toBe(
      'cron(0 12 1 * ? *)',
    );
  });

  it('rejects a log retention CloudWatch does not offer', () => {
    expect(() => parsePbsConfig({ ...minimal, logRetentionDays: 31 })).toThrow(/pbs\.logRetentionDays/);
  });

  it('rejects a JWT authorizer without an audience', () => {
    expect(() =>
      parsePbsConfig({ ...minimal, jwt: { issuer: 'https://id.example.com', audience: [] } }),
    ).toThrow(/pbs\.jwt\.audience/);
  });

  it('returns the default profiles claim pbs_profiles for a JWT authorizer', () => {
    const config = parsePbsConfig({
      ...minimal,
      jwt: { issuer: 'https://id.example.com', audience: ['pbs'] },
    });
    expect(config.jwt?.profilesClaim).toBe('pbs_profiles');
  });

  it('accepts a null profiles claim, which turns the per-profile restriction off', () => {
    const jwt = { issuer: 'https://id.example.com', audience: ['pbs'], profilesClaim: null };
    expect(parsePbsConfig({ ...minimal, jwt }).jwt?.profilesClaim).toBeNull();
  });

  it('rejects a profiles claim name with a space, naming the field', () => {
    const jwt = { issuer: 'https://id.example.com', audience: ['pbs'], profilesClaim: 'pbs profiles' };
    expect(() => parsePbsConfig({ ...minimal, jwt })).toThrow(/pbs\.jwt\.profilesClaim/);
  });

  it('rejects unknown fields, naming them', () => {
    expect(() => parsePbsConfig({ ...minimal, schedule: 'monthly' })).toThrow(/schedule/);
  });
});

describe('one settings schema', () => {
  const badShape = { pagination: { style: 'pages' } };
  const goodShape = { pagination: { style: 'offset' }, itemsPath: 'data' };

  it('refuses the same wire shape in the CDK context, the functions environment and the CLI config', () => {
    expect(() => parsePbsConfig({ ...minimal, serviceShape: badShape })).toThrow(
      /pbs\.serviceShape\.pagination\.style/,
    );
    expect(() => readEnv({ [ENV.serviceShape]: JSON.stringify(badShape) }, ENV.serviceShape)).toThrow(
      expect.objectContaining({ name: 'ConfigError', variable: 'PBS_SERVICE_SHAPE' }),
    );
    expect(() =>
      parseServiceSettings({
        baseUrl: 'https://pbs.example.com',
        apiKey: 'k',
        apiSecret: 's',
        shape: badShape,
      }),
    ).toThrow(expect.objectContaining({ field: 'shape.pagination.style' }));
  });

  it('reads the same wire shape alike from the CDK context and the functions environment', () => {
    const fromContext = parsePbsConfig({ ...minimal, serviceShape: goodShape }).serviceShape;
    const fromEnv = readEnv({ [ENV.serviceShape]: JSON.stringify(goodShape) }, ENV.serviceShape);

    expect(fromEnv).toEqual(fromContext);
    expect(fromEnv?.pagination).toEqual({
      style: 'offset',
      offsetParam: 'offset',
      limitParam: 'limit',
      limit: 500,
      totalItemsPath: null,
    });
  });
});

describe('monthlyProfiles', () => {
  it('returns the names of the monthly profiles, sorted', () => {
    expect(monthlyProfiles(parsePbsConfig(TEST_CONFIG))).toEqual(['acme', 'demo']);
  });
});

describe('parsePbsConfig gains policies', () => {
  const monthly = {
    ...minimal,
    profiles: {
      demo: { secretArn: secretArn('demo'), timeZone: 'UTC', monthly: true },
      uk: { secretArn: secretArn('uk'), timeZone: 'Europe/London', monthly: true, gains: { taxRules: 'uk' } },
    },
  };

  it("returns every policy, the rule set's fixed choices filled in", () => {
    const config = parsePbsConfig({
      ...monthly,
      gains: {
        taxRules: 'de',
        pooling: 'universal',
        transferToleranceHours: 6,
        sameInstantOrder: 'acquisitions-first',
        protocolMoves: 'non-taxable',
        transferInBasis: 'zero',
        transferFee: 'basis',
      },
    });
    expect(config.gains).toEqual({
      taxRules: 'de',
      method: 'fifo',
      pooling: 'universal',
      taxYearStart: '01-01',
      longTermYears: 1,
      transferToleranceHours: 6,
      sameInstantOrder: 'acquisitions-first',
      protocolMoves: 'non-taxable',
      transferInBasis: 'zero',
      transferFee: 'basis',
      currency: 'EUR',
    });
  });

  it("returns each monthly profile with its own policies, else the deployment's, else null", () => {
    expect(
      scheduledProfiles(parsePbsConfig(monthly)).map((p) => [p.profile, p.gains?.taxRules ?? null]),
    ).toEqual([
      ['demo', null],
      ['uk', 'uk'],
    ]);
    const withDefault = parsePbsConfig({ ...monthly, gains: { taxRules: 'us' } });
    expect(scheduledProfiles(withDefault).map((p) => [p.profile, p.gains?.taxRules])).toEqual([
      ['demo', 'us'],
      ['uk', 'uk'],
    ]);
  });

  it("returns each monthly profile's journal block, else null", () => {
    const withJournal = parsePbsConfig({
      ...monthly,
      profiles: {
        ...monthly.profiles,
        uk: { ...monthly.profiles.uk, gains: undefined, journal: { rollup: true } },
      },
    });
    expect(scheduledProfiles(withJournal).map((p) => [p.profile, p.journal?.rollup ?? null])).toEqual([
      ['demo', null],
      ['uk', true],
    ]);
    expect(() =>
      parsePbsConfig({
        ...monthly,
        profiles: { ...monthly.profiles, uk: { ...monthly.profiles.uk, journal: { chart: { bank: {} } } } },
      }),
    ).toThrow(/journal\.chart\.bank/);
  });

  it('rejects a policy value outside its vocabulary, naming the field', () => {
    expect(() => parsePbsConfig({ ...monthly, gains: { transferFee: 'ignored' } })).toThrow(
      /pbs\.gains\.transferFee: Invalid option: expected one of "dropped"\|"basis"/,
    );
    expect(() => parsePbsConfig({ ...monthly, gains: { transferToleranceHours: -1 } })).toThrow(
      /pbs\.gains\.transferToleranceHours: /,
    );
    expect(() => parsePbsConfig({ ...monthly, gains: { sameInstantOrder: 'random' } })).toThrow(
      /pbs\.gains\.sameInstantOrder: /,
    );
  });

  it("rejects a choice the profile's rule set contradicts, naming the field and the law", () => {
    const profiles = {
      ...monthly.profiles,
      uk: { ...monthly.profiles.uk, gains: { taxRules: 'uk', method: 'hifo' } },
    };
    expect(() => parsePbsConfig({ ...monthly, profiles })).toThrow(
      /pbs\.profiles\.uk\.gains\.method: uk rules match by HMRC identification/,
    );
  });

  it('rejects an unknown policy name', () => {
    expect(() => parsePbsConfig({ ...monthly, gains: { fee: 'basis' } })).toThrow(
      /pbs\.gains: Unrecognized key: "fee"/,
    );
  });

  it("gives the functions the service's limit of 20 requests/s per key when the environment leaves the rate unset, as the CLI's client", () => {
    expect(readEnv({}, ENV.requestsPerSecond)).toBe(20);
    expect(readEnv({ [ENV.requestsPerSecond]: '4' }, ENV.requestsPerSecond)).toBe(4);
  });
});
