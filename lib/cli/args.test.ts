import { describe, expect, it } from 'vitest';
import { FLAG_NAMES, parseCommandLine, USAGE } from './args.ts';

describe('parseCommandLine', () => {
  it('returns a run on the embedded simulator when no service is configured', () => {
    expect(parseCommandLine(['run', '--period', '2025'], {})).toEqual({
      command: 'run',
      request: { profile: 'demo', period: '2025' },
      service: { kind: 'simulator' },
      destination: { kind: 'folder', dir: 'out' },
    });
  });

  it('returns a run on the real service when PBS_BASE_URL is set', () => {
    const command = parseCommandLine(['run', '--profile', 'acme'], {
      PBS_BASE_URL: 'https://pbs.example.com',
    });
    expect(command).toMatchObject({ service: { kind: 'service' } });
  });

  it('returns the gains options of the gains flags, the years as a number', () => {
    const command = parseCommandLine(
      [
        'run',
        '--report=gains',
        '--gains-method=hifo',
        '--gains-pooling=account',
        '--tax-year-start=04-06',
        '--long-term-years=2',
      ],
      {},
    );
    expect(command).toMatchObject({
      request: {
        reports: ['gains'],
        gains: { method: 'hifo', pooling: 'account', taxYearStart: '04-06', longTermYears: 2 },
      },
    });
  });

  it('returns the tax rules and the gains policies of their flags, the tolerance as a number', () => {
    const command = parseCommandLine(
      [
        'run',
        '--report=gains',
        '--tax-rules=uk',
        '--same-instant-order=acquisitions-first',
        '--protocol-moves=non-taxable',
        '--transfer-in-basis=zero',
        '--transfer-fee=basis',
        '--transfer-tolerance-hours=1.5',
        '--gains-currency=USD',
      ],
      {},
    );
    expect(command).toMatchObject({
      request: {
        gains: {
          taxRules: 'uk',
          currency: 'USD',
          sameInstantOrder: 'acquisitions-first',
          protocolMoves: 'non-taxable',
          transferInBasis: 'zero',
          transferFee: 'basis',
          transferToleranceHours: 1.5,
        },
      },
    });
  });

  it('returns --broker-reporting per account (repeatable, ACCOUNT=B) and --wallet-allocation', () => {
    const gains = (...flags: string[]) =>
      (
        parseCommandLine(['run', '--report=gains', '--tax-rules=us', ...flags], {}) as unknown as {
          request: { gains: unknown };
        }
      ).request.gains;
    expect([
      gains('--broker-reporting=basis-reported'),
      gains(
        '--broker-reporting=coinbase=basis-not-reported',
        '--broker-reporting',
        'kraken=basis-reported',
        '--broker-reporting=none',
        '--wallet-allocation=account-order',
      ),
    ]).toEqual([
      { taxRules: 'us', brokerReporting: 'basis-reported' },
      {
        taxRules: 'us',
        walletAllocation: 'account-order',
        brokerReporting: {
          default: 'none',
          accounts: { coinbase: 'basis-not-reported', kraken: 'basis-reported' },
        },
      },
    ]);
    expect(() => gains('--broker-reporting=none', '--broker-reporting=basis-reported')).toThrow(
      /--broker-reporting: give the value for every account once/,
    );
  });

  it('returns the request fields of every request flag', () => {
    const command = parseCommandLine(
      [
        'run',
        '--period=2025-01-05..2025-02-10',
        '--time-zone=Europe/Berlin',
        '--report=transactions,changes',
        '--changes-since=2025-06-01',
        '--format=csv',
        '--token=ETH',
        '--token=USDC',
        '--category=trade',
        '--protocol=Aave V3',
        '--protocol=Lido',
        '--window=week',
        '--delimiter=;',
        '--decimal-separator=,',
      ],
      {},
    );
    expect(command).toMatchObject({
      request: {
        profile: 'demo',
        period: { from: '2025-01-05', to: '2025-02-10' },
        timeZone: 'Europe/Berlin',
        reports: ['transactions', 'changes'],
        changesSince: '2025-06-01',
        formats: ['csv'],
        filters: { tokens: ['ETH', 'USDC'], category: 'trade' },
        protocols: ['Aave V3', 'Lido'],
        window: 'week',
        csv: { delimiter: ';', decimalSeparator: ',' },
      },
    });
  });

  it('returns protocols "all" for --protocol all', () => {
    expect(parseCommandLine(['run', '--protocol', 'all'], {})).toMatchObject({
      request: { protocols: 'all' },
    });
  });

  it('returns an S3 destination with its endpoint', () => {
    const command = parseCommandLine(
      ['run', '--s3', 's3://reports-bucket/exports/', '--s3-endpoint', 'http://127.0.0.1:4568'],
      {},
    );
    expect(command).toMatchObject({
      destination: {
        kind: 's3',
        bucket: 'reports-bucket',
        prefix: 'exports',
        endpoint: 'http://127.0.0.1:4568',
      },
    });
  });

  it('refuses --out together with --s3, naming the flag', () => {
    expect(() => parseCommandLine(['run', '--out', 'x', '--s3', 's3://bucket-a/p'], {})).toThrow(/^--s3: /);
  });

  it('refuses a malformed S3 URL, naming the flag', () => {
    expect(() => parseCommandLine(['run', '--s3', 'bucket/prefix'], {})).toThrow(/^--s3: must look like/);
  });

  it('refuses a non-integer concurrency, naming the flag', () => {
    expect(() => parseCommandLine(['run', '--concurrency', '2.5'], {})).toThrow(/^--concurrency: /);
  });

  it('refuses an unknown flag', () => {
    expect(() => parseCommandLine(['run', '--colour'], {})).toThrow(/^--colour: unknown flag/);
  });

  it('refuses render without a snapshot, naming the flag', () => {
    expect(() => parseCommandLine(['render'], {})).toThrow(/^--snapshot: is required/);
  });

  it.each([
    [['--out', ''], /^--out: must not be empty/],
    [['--s3', 's3://bucket..name/x'], /^--s3: bucket "bucket..name" is not a valid S3 bucket name/],
    [['--s3', 's3://bucket/a/../b'], /^--s3: the prefix must not hold/],
    [['--s3', 's3://bucket/x', '--s3-endpoint', 'not a url'], /^--s3-endpoint: must be an http/],
    [['--s3', 's3://bucket/x', '--s3-endpoint', 'ftp://host'], /^--s3-endpoint: must be an http/],
    [
      ['--s3', 's3://bucket/x', '--s3-endpoint', 'http://user:pw@host'],
      /^--s3-endpoint: must not hold credentials/,
    ],
    [['--s3', 's3://bucket/x', '--s3-region', '../x'], /^--s3-region: expected a region name/],
    [['--s3-region', 'eu-central-1'], /^--s3-region: needs --s3/],
    [['--transactions', '99999999999'], /^--transactions: must be at most 50000000/],
    [['--seed', '4294967296'], /^--seed: must be at most 4294967295/],
  ])('refuses %j, naming the flag', (argv, message) => {
    expect(() => parseCommandLine(['run', ...argv], {})).toThrow(message);
  });

  it('refuses simulator flags while the real service is configured, instead of ignoring them', () => {
    expect(() =>
      parseCommandLine(['run', '--transactions', '10'], { PBS_BASE_URL: 'https://pbs.example.com' }),
    ).toThrow(/^--transactions: only applies to the embedded simulator/);
  });

  it('quotes a hostile argument JSON-escaped and cut in its error', () => {
    expect(() => parseCommandLine(['run', `\u001b]0;x\u0007${'y'.repeat(100)}`], {})).toThrow(
      /^arguments: unexpected argument "\\u001b\]0;x\\u0007y+…"$/,
    );
  });

  it('returns help marked as a missing command for no arguments, and for flags without a command', () => {
    expect([parseCommandLine([], {}), parseCommandLine(['--period', '2025'], {})]).toEqual([
      { command: 'help', missingCommand: true },
      { command: 'help', missingCommand: true },
    ]);
  });

  it('returns plain help for help and --help', () => {
    expect([parseCommandLine(['help'], {}), parseCommandLine(['--help'], {})]).toEqual([
      { command: 'help' },
      { command: 'help' },
    ]);
  });

  it('returns version for --version', () => {
    expect(parseCommandLine(['--version'], {})).toEqual({ command: 'version' });
  });

  it.each([
    ['--profil', /^--profil: unknown flag \(did you mean --profile\?\)/],
    ['--time-zome', /^--time-zome: unknown flag \(did you mean --time-zone\?\)/],
    ['--xyzzy', /^--xyzzy: unknown flag; /],
  ])('refuses the unknown flag %s with the closest known one, if any is close', (flag, message) => {
    expect(() => parseCommandLine(['run', flag, 'x'], {})).toThrow(message);
  });

  it('names a flag missing its value, and a switch given one', () => {
    expect(() => parseCommandLine(['run', '--period'], {})).toThrow(/^--period: needs a value$/);
    expect(() => parseCommandLine(['run', '--simulator=yes'], {})).toThrow(/^--simulator: takes no value$/);
  });

  it('returns the presentation flags of render as request fields', () => {
    expect(
      parseCommandLine(
        ['render', '--snapshot', 's.gz', '--format', 'csv', '--delimiter', 'tab', '--report', 'transactions'],
        {},
      ),
    ).toEqual({
      command: 'render',
      snapshot: 's.gz',
      destination: { kind: 'folder', dir: 'out' },
      presentation: { formats: ['csv'], csv: { delimiter: '\t' }, reports: ['transactions'] },
    });
  });

  it("takes --time-zone on render as the zone the dates are shown in (the period stays the snapshot's)", () => {
    expect(
      parseCommandLine(['render', '--snapshot', 's.gz', '--time-zone', 'America/New_York'], {}),
    ).toMatchObject({ command: 'render', presentation: { timeZone: 'America/New_York' } });
  });

  it.each([
    ['--period', '2024', /^--period: render cannot apply it: changes what is fetched/],
    ['--conflicting-copies', 'last', /^--conflicting-copies: render cannot apply it: was applied when/],
    ['--concurrency', '2', /^--concurrency: render cannot apply it: render calls no service/],
  ])('refuses %s on render by name, with the reason', (flag, value, message) => {
    expect(() => parseCommandLine(['render', '--snapshot', 's.gz', flag, value], {})).toThrow(message);
  });
});

describe('USAGE', () => {
  it('lists every flag the parser accepts (help itself is how it is shown)', () => {
    const missing = FLAG_NAMES.filter((name) => name !== 'help' && !USAGE.includes(`--${name} `));

    expect(missing).toEqual([]);
  });
});
