/**
 * Bad input, fuzzed: the HTTP API (POST /reports bodies, GET /reports/{jobId}, GET /reports), the
 * CLI and `parseExportRequest` are fed wrong types, impossible dates, unknown zones, huge and
 * hostile strings, conflicting filters, malformed, oversized and base64 bodies. Every one must be
 * refused with a 4xx (API) or exit code 2 (CLI) naming the field or flag, without a crash, without
 * a request to the service, an S3 write or a started execution.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StartExecutionCommand } from '@aws-sdk/client-sfn';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import fc from 'fast-check';
import { IANAZone } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SIMULATED_TRANSACTIONS, parseCommandLine } from '../../lib/cli/args.ts';
import { type CliIo, main } from '../../lib/cli/main.ts';
import { flagOfField } from '../../lib/cli/messages.ts';
import { ValidationError } from '../../lib/errors.ts';
import {
  formatPath,
  isDayOrInstant,
  PROFILE_NAME,
  parseExportRequest,
  periodProblem,
  RequestValidationError,
} from '../../lib/export/plan/index.ts';
import { MAX_BODY_BYTES } from '../../lib/http-api/index.ts';
import { createApiHandler } from '../../lib/lambda/index.ts';
import { startSimulator } from '../../lib/simulator/index.ts';
import type { RunningSimulator } from '../../lib/simulator/types.ts';
import { recordCommands } from '../support/s3.ts';
import { captureOutput, loadEvent, startWorkflowHarness, type WorkflowHarness } from '../support/workflow.ts';
import { fuzzParameters, Tally } from './support/fuzz.ts';

// ---------------------------------------------------------------------------------------------
// Hostile values shared by every surface
// ---------------------------------------------------------------------------------------------

/** Strings an attacker or a careless caller sends: traversal, encodings, controls, scripts, RTL. */
const NASTY_STRINGS = [
  '',
  ' ',
  '../acme',
  'acme/../../x',
  '%2e%2e',
  '%2e%2e%2f',
  '..',
  '.',
  '/',
  '/etc/passwd',
  '..\\..\\windows',
  'acme%2F..',
  'acme\u0000',
  '\u0000',
  'acme\n',
  '\r\n',
  ' acme',
  '-acme',
  '_acme',
  'acme.',
  'ａｃｍｅ',
  '\u202eemca',
  'e\u0301',
  '🚀',
  '\ud800',
  '\udfff\ud800',
  '$(rm -rf /)',
  '`id`',
  '<script>alert(1)</script>',
  "'; DROP TABLE jobs; --",
  '=HYPERLINK("http://evil.example")',
  '{"$ne":null}',
  '__proto__',
  'constructor',
  'null',
  'undefined',
  'NaN',
  '1e309',
  '-0',
  'a'.repeat(65),
  'x'.repeat(10_000),
];

/** Every UTF-8 byte of `text` percent-encoded (lone surrogates as U+FFFD, as on the wire). */
function percentEncoded(text: string): string {
  return [...Buffer.from(text, 'utf8')].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');
}

/** Shows `value` in fast-check's counterexamples as `label` (huge values stay readable). */
function labelled<T extends object>(value: T, label: string): T {
  return Object.assign(value, { [fc.toStringMethod]: () => label });
}

/** JSON text of `value` with every string over 60 characters cut, for counterexamples. */
function short(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    typeof item === 'string' && item.length > 60 ? `${item.slice(0, 60)}…(${item.length} chars)` : item,
  );
}

/** Unicode strings of every kind, lone surrogates included. */
const anyString = fc.oneof(
  fc.constantFrom(...NASTY_STRINGS),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ maxLength: 20 }),
);

/** A long string (1 000 – 80 000 characters) of one repeated, possibly multibyte, character. */
const hugeString = fc
  .tuple(fc.constantFrom('x', 'é', '🚀', '\u0000', '../', '%2e'), fc.integer({ min: 1_000, max: 80_000 }))
  .map(([unit, length]) => unit.repeat(Math.ceil(length / unit.length)));

const hostileString = fc.oneof({ weight: 5, arbitrary: anyString }, { weight: 1, arbitrary: hugeString });

/** JSON values that are not strings. */
const notAString = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
);

/** JSON values that are not arrays. */
const notAnArray = fc.oneof(
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.string({ maxLength: 10 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
);

/** JSON values that are not plain objects. */
const notAnObject = fc.oneof(
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.string({ maxLength: 10 }),
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }),
);

/** Something that is not the string `value` would need, or a string that is refused by `refused`. */
const badText = (refused: (text: string) => boolean) => fc.oneof(notAString, hostileString.filter(refused));

const calendarDay = fc
  .date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2200-12-31T00:00:00Z'), noInvalidDate: true })
  .map((date) => date.toISOString().slice(0, 10));

/** Periods that do not exist: month 13, 30 February, a range ending before it starts, … */
const badPeriod = fc.oneof(
  notAString.filter((value) => value === null || typeof value !== 'object' || Array.isArray(value)),
  fc.constantFrom(
    '2025-13',
    '2025-00',
    '2025-02-30',
    '2025-1',
    '25',
    '2025-10-01',
    '10000',
    '2025-W01',
    '2025/10',
    '２０２５',
    '2025-10 ',
    ' 2025',
    '2025..2026',
    '-2025',
    '+2025',
  ),
  hostileString.filter((text) => periodProblem(text) !== null),
  fc.record({
    from: fc.constantFrom('2025-02-30', '2025-13-01', '2025-00-10', '2025-1-1', '2023-02-29', '2025-04-31'),
    to: calendarDay,
  }),
  fc.record({
    from: calendarDay,
    to: fc.oneof(
      notAString,
      hostileString.filter((t) => periodProblem({ from: '1900-01-01', to: t }) !== null),
    ),
  }),
  fc
    .tuple(calendarDay, calendarDay)
    .filter(([a, b]) => a !== b)
    .map(([a, b]) => (a < b ? { from: b, to: a } : { from: a, to: b })),
  fc.record({ from: calendarDay }),
  fc.record({ to: calendarDay }),
  fc.record({ from: calendarDay, to: calendarDay, until: calendarDay }),
  fc.constant({}),
);

const REPORT_NAMES = ['transactions', 'movements', 'summary', 'changes', 'gains'];
const badNameList = (names: readonly string[]) =>
  fc.oneof(
    notAnArray,
    fc.constant([]),
    fc
      .tuple(
        fc.array(fc.constantFrom(...names), { maxLength: 3 }),
        fc.oneof(
          notAString,
          hostileString.filter((t) => !names.includes(t)),
        ),
      )
      .map(([good, bad]) => [...good, bad]),
  );

/** Filter values the service's query string cannot carry as sent: huge, controls, lone surrogates. */
const unsendable = fc.oneof(
  hugeString.filter((text) => text.trim().length > 256),
  fc.constantFrom('ETH\u0000', '\u001b[31mETH', 'ET\nH', 'ETH\u007f', 'ETH\u0085', 'ETH\ud800', '\udc00'),
  fc
    .tuple(fc.string({ maxLength: 10 }), fc.integer({ min: 0, max: 31 }), fc.string({ maxLength: 10 }))
    .map(([a, code, b]) => `x${a}${String.fromCharCode(code)}${b}x`),
);

/** One corrupted field: the body sent and the field the answer must name. */
interface Corruption {
  body: Record<string, unknown>;
  field: string;
}

const BASE = { profile: 'acme', period: '2025-10' } as const;
const REGISTERED = new Set(['demo', 'acme', 'empty', 'ny']);
const KNOWN_KEYS = new Set([
  'profile',
  'period',
  'timeZone',
  'reports',
  'changesSince',
  'formats',
  'filters',
  'protocols',
  'window',
  'csv',
  'gains',
  'journal',
]);

const corrupt = (field: string, body: Record<string, unknown>): Corruption => ({
  field,
  body: { ...BASE, ...body },
});

/** Every field of an export request, each corrupted on its own. */
const corruptedRequest: fc.Arbitrary<Corruption> = fc
  .oneof(
    // profile: wrong types, traversal, huge, unicode; well-formed but unregistered names are 404s.
    badText((text) => !REGISTERED.has(text)).map((profile) => corrupt('profile', { profile })),
    fc.constant(corrupt('profile', { profile: undefined })),
    badPeriod.map((period) => corrupt('period', { period })),
    badText((zone) => !IANAZone.isValidZone(zone)).map((timeZone) => corrupt('timeZone', { timeZone })),
    fc
      .constantFrom(
        'Mars/Olympus',
        'UTC+25',
        '../../etc/localtime',
        'Europe/Berlin\u0000',
        'Europe/',
        'GMT+99',
      )
      .map((timeZone) => corrupt('timeZone', { timeZone })),
    badNameList(REPORT_NAMES).map((reports) => corrupt('reports', { reports })),
    badNameList(['csv', 'xlsx']).map((formats) => corrupt('formats', { formats })),
    badText((text) => !['month', 'week', 'day', 'year'].includes(text)).map((window) =>
      corrupt('window', { window }),
    ),
    // changesSince: without the changes report, missing with it, malformed with it.
    fc.oneof(calendarDay, hostileString).map((changesSince) => corrupt('changesSince', { changesSince })),
    fc.constant(corrupt('changesSince', { reports: ['changes'] })),
    badText((text) => !isDayOrInstant(text)).map((changesSince) =>
      corrupt('changesSince', { reports: ['transactions', 'changes'], changesSince }),
    ),
    fc
      .constantFrom(
        '2025-06-01T00:00:00',
        '2025-06-01T25:00Z',
        '2025-06-01T24:00Z',
        '2025-06-01T23:60Z',
        '2025-06-01T23:59:60Z',
        '2025-06-31',
        '2025-06-01T00:00+25:00',
        '2025-06-01T00:00+15:00',
        '2025-06-01T00:00-00:60',
        '1749'.repeat(3),
      )
      .map((changesSince) => corrupt('changesSince', { reports: ['changes'], changesSince })),
    // filters: wrong shapes, empty values, unknown keys (the wire's own names t, h, cf, p included).
    notAnObject.map((filters) => corrupt('filters', { filters })),
    fc
      .oneof(
        notAnArray,
        fc.constant(['']),
        fc.constant([' ', 'ETH']),
        fc.array(notAString, { minLength: 1, maxLength: 3 }),
        unsendable.map((token) => ['ETH', token]),
      )
      .map((tokens) => corrupt('filters.tokens', { filters: { tokens } })),
    unsendable.map((category) => corrupt('filters.category', { filters: { category } })),
    unsendable.map((hash) => corrupt('filters.hash', { filters: { hash } })),
    unsendable.map((name) => corrupt('protocols', { protocols: [name] })),
    fc
      .oneof(notAString, fc.constantFrom('', ' ', '\t\n'))
      .map((category) => corrupt('filters.category', { filters: { category } })),
    fc
      .oneof(notAString, fc.constantFrom('', '   '))
      .map((hash) => corrupt('filters.hash', { filters: { hash } })),
    fc
      .oneof(fc.constantFrom('t', 'h', 'cf', 'p', 'token', 'protocol'), fc.string({ maxLength: 8 }))
      .filter((key) => !['tokens', 'category', 'hash'].includes(key))
      .map((key) => corrupt(formatPath(['filters', key]), { filters: { [key]: 'ETH' } })),
    // A hash makes the service ignore every other filter: the API refuses the combination.
    fc
      .constantFrom(
        ['filters.tokens', { filters: { hash: '0xabc', tokens: ['ETH'] } }] as const,
        ['filters.category', { filters: { hash: '0xabc', category: 'trade' } }] as const,
        ['protocols', { filters: { hash: '0xabc' }, protocols: ['Lido'] }] as const,
        ['protocols', { filters: { hash: '0xabc' }, protocols: 'all' }] as const,
      )
      .map(([field, body]) => corrupt(field, body)),
    fc
      .oneof(
        notAString.filter(
          (value) => !Array.isArray(value) || value.length === 0 || value.some((v) => typeof v !== 'string'),
        ),
        fc.constantFrom('none', 'ALL', '', [], [''], ['  ']),
      )
      .map((protocols) => corrupt('protocols', { protocols })),
    // csv options.
    notAnObject.map((csv) => corrupt('csv', { csv })),
    badText((text) => ![',', ';', '\t'].includes(text)).map((delimiter) =>
      corrupt('csv.delimiter', { csv: { delimiter } }),
    ),
    badText((text) => !['.', ','].includes(text)).map((decimalSeparator) =>
      corrupt('csv.decimalSeparator', { csv: { decimalSeparator } }),
    ),
    fc.constant(corrupt('csv.decimalSeparator', { csv: { delimiter: ',', decimalSeparator: ',' } })),
    fc
      .string({ maxLength: 8 })
      .filter((key) => key !== 'delimiter' && key !== 'decimalSeparator')
      .map((key) => corrupt(formatPath(['csv', key]), { csv: { [key]: ';' } })),
    // gains: options without the report, bad options with it, filters with it.
    fc.constant(corrupt('gains', { gains: { method: 'fifo' } })),
    badText((text) => !['fifo', 'lifo', 'hifo', 'average', 'hmrc'].includes(text)).map((method) =>
      corrupt('gains.method', { reports: ['gains'], gains: { method } }),
    ),
    badText((text) => !['universal', 'account', 'wallet-from-2025'].includes(text)).map((pooling) =>
      corrupt('gains.pooling', { reports: ['gains'], gains: { pooling } }),
    ),
    fc
      .oneof(
        notAString,
        fc.constantFrom('02-29', '02-30', '04-31', '13-01', '00-10', '4-6', '04-06 ', '04/06', '0406'),
        hostileString,
      )
      .filter(
        (value) =>
          typeof value !== 'string' ||
          !/^(0[13578]|1[02])-(0[1-9]|[12]\d|3[01])$|^(0[469]|11)-(0[1-9]|[12]\d|30)$|^02-(0[1-9]|1\d|2[0-8])$/.test(
            value,
          ),
      )
      .map((taxYearStart) => corrupt('gains.taxYearStart', { reports: ['gains'], gains: { taxYearStart } })),
    fc
      .oneof(
        fc.constantFrom(0, 11, -1, 1.5, 1e9, '1', null, true),
        fc.integer().filter((n) => n < 1 || n > 10),
        fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Number.isInteger(n)),
      )
      .map((longTermYears) =>
        corrupt('gains.longTermYears', { reports: ['gains'], gains: { longTermYears } }),
      ),
    fc
      .constantFrom(
        ['filters.tokens', { filters: { tokens: ['ETH'] } }] as const,
        ['filters.category', { filters: { category: 'trade' } }] as const,
        ['filters.hash', { filters: { hash: '0xabc' } }] as const,
        ['protocols', { protocols: ['Lido'] }] as const,
        ['protocols', { protocols: 'all' }] as const,
      )
      .map(([field, body]) => corrupt(field, { reports: ['gains'], ...body })),
    // Keys the request does not have, named back by their path.
    fc
      .oneof(
        fc.constantFrom(
          'apiSecret',
          'bucket',
          '__proto__',
          'constructor',
          'prototype',
          '',
          'a.b',
          'x[0]',
          '\u0000',
          '🚀',
        ),
        fc.string({ unit: 'binary', maxLength: 12 }),
      )
      .filter((key) => !KNOWN_KEYS.has(key))
      .map((key) => corrupt(formatPath([key]), { [key]: 'x' })),
  )
  .map((corruption) => labelled(corruption, short(corruption)));

// ---------------------------------------------------------------------------------------------
// The HTTP API
// ---------------------------------------------------------------------------------------------

/** S3 commands that write or delete. */
const S3_WRITE =
  /^(PutObject|CreateMultipartUpload|UploadPart|CompleteMultipartUpload|CopyObject|DeleteObject)/;

/** What one call did: status, error body, and whether anything reached the outside. */
interface Outcome {
  status: number;
  error: {
    code?: string;
    message?: string;
    field?: string | null;
    issues?: { field: string; reason: string }[];
  };
  crashed: boolean;
  reached: string[];
}

describe('the HTTP API fed bad input', () => {
  let h: WorkflowHarness;
  let s3Commands: string[];
  let output: ReturnType<typeof captureOutput> | undefined;
  const events: Record<'post' | 'get' | 'list', APIGatewayProxyEventV2> = {} as never;

  beforeAll(async () => {
    h = await startWorkflowHarness();
    s3Commands = recordCommands(h.client);
    events.post = await loadEvent('post-reports.json');
    events.get = await loadEvent('get-report.json');
    events.list = await loadEvent('list-reports.json');
  });
  afterAll(async () => {
    output?.stop();
    await h?.close();
  });

  /** Calls the Lambda handler with `event` and reports what it answered and touched. */
  async function call(event: APIGatewayProxyEventV2): Promise<Outcome> {
    const before = {
      log: h.simulator.requestLog.length,
      writes: s3Commands.filter((name) => S3_WRITE.test(name)).length,
      starts: h.sfn.commandCalls(StartExecutionCommand).length,
    };
    let status = 0;
    let error: Outcome['error'] = {};
    let crashed = false;
    output = captureOutput();
    try {
      const result = (await createApiHandler(h.apiContext())(event)) as APIGatewayProxyStructuredResultV2;
      status = result.statusCode ?? 0;
      error = (JSON.parse(result.body ?? '{}') as { error?: Outcome['error'] }).error ?? {};
    } catch {
      crashed = true;
    } finally {
      output.stop();
      output = undefined;
    }
    if (status >= 500 || status === 0) crashed = true;
    const reached = [
      ...(h.simulator.requestLog.length > before.log ? ['service'] : []),
      ...(s3Commands.filter((name) => S3_WRITE.test(name)).length > before.writes ? ['S3 write'] : []),
      ...(h.sfn.commandCalls(StartExecutionCommand).length > before.starts ? ['StartExecution'] : []),
    ];
    return { status, error, crashed, reached };
  }

  /** Counts the outcome and asserts it is a 4xx naming `field` (or a field under it). */
  function expectRefused(
    tally: Tally<'badInput'>,
    outcome: Outcome,
    field: string,
    statuses: number[],
  ): void {
    tally.add('tried');
    if (outcome.crashed) tally.add('crashed');
    if (outcome.reached.length > 0) tally.add('reachedService');
    const named = (outcome.error.issues ?? []).map((issue) => issue.field);
    const under = (name: string) =>
      name === field || name.startsWith(`${field}.`) || name.startsWith(`${field}[`);
    const clean =
      !outcome.crashed &&
      outcome.reached.length === 0 &&
      statuses.includes(outcome.status) &&
      typeof outcome.error.field === 'string' &&
      outcome.error.field !== '' &&
      named.some(under);
    if (clean) tally.add('rejectedCleanly');
    expect({
      status: statuses.includes(outcome.status) ? 'expected' : outcome.status,
      reached: outcome.reached,
      crashed: outcome.crashed,
      field: outcome.error.field,
      named: named.some(under) ? 'names it' : named,
    }).toEqual({
      status: 'expected',
      reached: [],
      crashed: false,
      field: expect.stringMatching(/./),
      named: 'names it',
    });
  }

  function postEvent(
    body: string | undefined,
    options: { base64?: boolean; headers?: Record<string, string> } = {},
  ) {
    const event = structuredClone(events.post);
    if (body === undefined) delete event.body;
    else event.body = options.base64 ? Buffer.from(body, 'utf8').toString('base64') : body;
    event.isBase64Encoded = options.base64 ?? false;
    event.headers = { ...event.headers, ...options.headers };
    return event;
  }

  it('answers POST /reports with a 4xx naming the corrupted field of the request, starting nothing', async () => {
    const tally = new Tally('badInput', 'API POST /reports: request fields');
    try {
      await fc.assert(
        fc.asyncProperty(corruptedRequest, fc.boolean(), async ({ body, field }, base64) => {
          const text = JSON.stringify(body);
          const oversized = Buffer.byteLength(text, 'utf8') > MAX_BODY_BYTES;
          const outcome = await call(postEvent(text, { base64 }));
          expectRefused(tally, outcome, oversized ? 'body' : field, oversized ? [413] : [400, 404]);
        }),
        fuzzParameters(3_000),
      );
    } finally {
      tally.record();
    }
  });

  /** Bodies that are not a JSON export request at all. */
  const badBody = fc
    .oneof(
      fc
        .string({ maxLength: 60 })
        .filter((text) => {
          try {
            JSON.parse(text);
            return false;
          } catch {
            return true;
          }
        })
        .map((text) => ({ bytes: Buffer.from(text, 'utf8'), status: [400] })),
      // Deep nesting parses, and is then an unknown key like any other.
      fc
        .constantFrom(
          `{"profile": "acme", "period": "2025-10", "x": ${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}}`,
          `{"profile": "acme", "period": "2025-10", "filters": {"tokens": ${'['.repeat(10_000)}${']'.repeat(10_000)}}}`,
        )
        .map((text) => ({
          bytes: Buffer.from(text, 'utf8'),
          status: [400],
          field: text.includes('"x"') ? 'x' : 'filters.tokens',
        })),
      fc
        .constantFrom(
          '{"profile": "acme",',
          '{"profile": "acme", "period": "2025-10"',
          "{'profile': 'acme'}",
          '{"profile": "acme", "period": "2025-10",}',
          '{"profile": "acme" "period": "2025-10"}',
          '\ufeff{"profile": "acme", "period": "2025-10"}',
          '{"profile": "acme", "period": NaN}',
          `${'['.repeat(20_000)}${']'.repeat(20_000)}`,
          `${'{"a":'.repeat(10_000)}`,
          '',
          ' ',
        )
        .map((text) => ({ bytes: Buffer.from(text, 'utf8'), status: [400] })),
      fc
        .jsonValue()
        .filter((value) => value === null || typeof value !== 'object' || Array.isArray(value))
        .map((value) => ({ bytes: Buffer.from(JSON.stringify(value), 'utf8'), status: [400] })),
      // Invalid UTF-8 inside an otherwise valid request: refused, not silently replaced by U+FFFD.
      fc
        .constantFrom([0xff], [0xc3], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0xf8, 0x88, 0x80, 0x80, 0x80])
        .map((bad) => ({
          bytes: Buffer.concat([
            Buffer.from('{"profile": "acme", "period": "2025-10", "filters": {"hash": "0x', 'utf8'),
            Buffer.from(bad),
            Buffer.from('"}}', 'utf8'),
          ]),
          status: [400],
        })),
      // Over the size limit, in one-byte and in multibyte characters.
      fc
        .tuple(
          fc.constantFrom('x', 'é', '🚀'),
          fc.integer({ min: MAX_BODY_BYTES + 1, max: 4 * MAX_BODY_BYTES }),
        )
        .map(([unit, bytes]) => ({
          bytes: Buffer.from(
            JSON.stringify({
              ...BASE,
              filters: { hash: unit.repeat(Math.ceil(bytes / Buffer.byteLength(unit))) },
            }),
            'utf8',
          ),
          status: [413],
        })),
    )
    .map((bad) =>
      labelled(
        bad,
        `${bad.bytes.length} bytes ${short(bad.bytes.toString('utf8').slice(0, 200))} → ${bad.status}`,
      ),
    );

  it('answers POST /reports with a 4xx naming body for malformed, non-object, non-UTF-8, base64 and oversized bodies', async () => {
    const tally = new Tally('badInput', 'API POST /reports: bodies');
    try {
      await fc.assert(
        fc.asyncProperty(badBody, fc.boolean(), async (bad, base64) => {
          const { bytes, status } = bad;
          const field = 'field' in bad ? bad.field : 'body';
          const event = postEvent('');
          event.body = base64 ? bytes.toString('base64') : bytes.toString('utf8');
          event.isBase64Encoded = base64;
          // Without base64 a Lambda body is a JS string: invalid UTF-8 cannot reach the handler.
          if (!base64 && !bytes.equals(Buffer.from(bytes.toString('utf8'), 'utf8'))) return;
          expectRefused(tally, await call(event), field, status);
        }),
        fuzzParameters(600),
      );
      for (const event of [
        postEvent(undefined),
        postEvent('', { base64: true }),
        // Not base64 at all: Node decodes what it can (nothing usable), the body is still refused.
        { ...postEvent(''), body: '!!!not base64!!!', isBase64Encoded: true },
        { ...postEvent(''), body: '{"profile":"acme","period":"2025-10"}', isBase64Encoded: true },
      ]) {
        expectRefused(tally, await call(event), 'body', [400]);
      }
    } finally {
      tally.record();
    }
  });

  it('answers POST /reports with 400 naming Idempotency-Key for a key that is not 1-255 visible ASCII characters', async () => {
    const tally = new Tally('badInput', 'API POST /reports: Idempotency-Key');
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            hostileString,
            fc.constantFrom('', ' ', 'key with space', 'k'.repeat(256), 'ключ', 'a\tb'),
          ),
          async (key) => {
            fc.pre(!/^[\x21-\x7e]{1,255}$/.test(key));
            const outcome = await call(
              postEvent(JSON.stringify(BASE), { headers: { 'idempotency-key': key } }),
            );
            expectRefused(tally, outcome, 'Idempotency-Key', [400]);
          },
        ),
        fuzzParameters(150),
      );
    } finally {
      tally.record();
    }
  });

  it('answers GET /reports/{jobId} with 400 or 404 naming jobId for hostile job ids', async () => {
    const tally = new Tally('badInput', 'API GET /reports/{jobId}');
    const jobId = fc.oneof(
      hostileString,
      fc.constantFrom(
        '0123456789ABCDEF0123456789ABCDEF',
        '0123456789abcdef0123456789abcde',
        '0123456789abcdef0123456789abcdef0',
        '0123456789abcdef0123456789abcdeg',
        '../../jobs/0123456789abcdef0123456789abcdef',
        'jobs%2F0123456789abcdef0123456789abcdef',
        '%2e%2e',
      ),
      fc.stringMatching(/^[0-9a-f]{32}$/),
    );
    try {
      await fc.assert(
        fc.asyncProperty(jobId, fc.boolean(), async (id, withParameters) => {
          fc.pre(id !== '');
          const event = structuredClone(events.get);
          event.rawPath = `/reports/${percentEncoded(id)}`;
          event.requestContext.http.path = event.rawPath;
          if (withParameters) event.pathParameters = { jobId: id };
          else delete event.pathParameters;
          expectRefused(tally, await call(event), 'jobId', [400, 404]);
        }),
        fuzzParameters(500),
      );
      // A path that does not even percent-decode.
      for (const raw of ['%E0%A4%A', '%', '%zz', '%C0%AF', '%ED%A0%80']) {
        const event = structuredClone(events.get);
        event.rawPath = `/reports/${raw}`;
        delete event.pathParameters;
        expectRefused(tally, await call(event), 'jobId', [400]);
      }
    } finally {
      tally.record();
    }
  });

  it('answers GET /reports with 400 or 404 naming profile or limit for bad query parameters', async () => {
    const tally = new Tally('badInput', 'API GET /reports?profile&limit');
    const badLimit = fc.oneof(
      fc.constantFrom(
        '0',
        '-1',
        '101',
        '1000',
        '1e2',
        '1.0',
        ' 5',
        '5 ',
        '',
        '0x10',
        '+5',
        '５',
        '10,20',
        'NaN',
        '9'.repeat(400),
      ),
      hostileString,
      fc.integer().map(String),
    );
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            fc
              .tuple(
                badText((text) => !REGISTERED.has(text)).map((p) =>
                  typeof p === 'string' ? p : JSON.stringify(p),
                ),
                fc.option(fc.constant('5')),
              )
              .map(([profile, limit]) => ({
                query: { profile, ...(limit !== null ? { limit } : {}) },
                field: 'profile',
              })),
            fc.constant({ query: {} as Record<string, string>, field: 'profile' }),
            badLimit
              .filter((limit) => !/^\d{1,3}$/.test(limit) || Number(limit) < 1 || Number(limit) > 100)
              .map((limit) => ({ query: { profile: 'acme', limit }, field: 'limit' })),
          ),
          async ({ query, field }) => {
            const event = structuredClone(events.list);
            event.queryStringParameters = query;
            event.rawQueryString = new URLSearchParams(query).toString();
            expectRefused(tally, await call(event), field, [400, 404]);
          },
        ),
        fuzzParameters(500),
      );
    } finally {
      tally.record();
    }
  });
});

// ---------------------------------------------------------------------------------------------
// The CLI
// ---------------------------------------------------------------------------------------------

/** One bad command line: the flags to add and the names (flag or field) the error must show. */
interface BadFlags {
  argv: readonly string[];
  names: readonly string[];
  /** Replaces the base command line instead of extending it. */
  alone?: boolean;
}

const flagValue = (
  flag: string,
  value: string,
  names: string[],
  extra: string[] = [],
): fc.Arbitrary<BadFlags> =>
  fc.boolean().map((joined) => ({
    argv: [...extra, ...(joined ? [`${flag}=${value}`] : [flag, value])],
    names: [flag, ...names],
  }));

/** A hostile string for a flag whose value the CLI passes on verbatim. */
const flagString = (refused: (text: string) => boolean) =>
  hostileString
    .map((text) => text.replaceAll('\u0000', ''))
    .filter((text) => refused(text) && text.length < 20_000);

const badCommandLine: fc.Arbitrary<BadFlags> = fc
  .oneof(
    flagString((t) => !PROFILE_NAME.test(t)).chain((v) => flagValue('--profile', v, ['profile'])),
    fc
      .oneof(
        fc.constantFrom(
          '2025-13',
          '2025-02-30..2025-03-01',
          '2025-03-02..2025-03-01',
          'a..b',
          '..',
          '2025-10..',
          '2025-1',
        ),
        flagString((t) => {
          const range = /^(.+)\.\.(.+)$/.exec(t);
          return periodProblem(range ? { from: range[1], to: range[2] } : t) !== null;
        }),
      )
      .chain((v) => flagValue('--period', v, ['period'])),
    flagString((t) => !IANAZone.isValidZone(t)).chain((v) => flagValue('--time-zone', v, ['timeZone'])),
    fc
      .oneof(
        fc.constantFrom('', ',', 'pdf', 'transactions,,summary'),
        flagString((t) => t.split(',').some((r) => !REPORT_NAMES.includes(r.trim()))),
      )
      .chain((v) => flagValue('--report', v, ['reports'])),
    fc
      .oneof(
        fc.constantFrom('', 'pdf', 'csv,', 'XLSX'),
        flagString((t) => t.split(',').some((r) => !['csv', 'xlsx'].includes(r.trim()))),
      )
      .chain((v) => flagValue('--format', v, ['formats'])),
    flagString(() => true).chain((v) => flagValue('--changes-since', v, ['changesSince'])),
    flagString((t) => !isDayOrInstant(t)).chain((v) =>
      flagValue('--changes-since', v, ['changesSince'], ['--report', 'changes']),
    ),
    fc
      .constantFrom('', ' ', '\t', 'T'.repeat(300), 'E\u001bTH')
      .chain((v) => flagValue('--token', v, ['filters.tokens'])),
    fc.constantFrom('', ' ').chain((v) => flagValue('--category', v, ['filters.category'])),
    fc
      .constantFrom('', '  ', 'h'.repeat(300), '0x\u0007')
      .chain((v) => flagValue('--hash', v, ['filters.hash'])),
    fc.constantFrom('', ' ').chain((v) => flagValue('--protocol', v, ['protocols'])),
    flagString((t) => !['month', 'week', 'day', 'year'].includes(t)).chain((v) =>
      flagValue('--window', v, ['window']),
    ),
    flagString((t) => !['fifo', 'lifo', 'hifo', 'average'].includes(t)).chain((v) =>
      flagValue('--gains-method', v, ['gains.method'], ['--report', 'gains']),
    ),
    fc.constant({ argv: ['--gains-method', 'fifo'], names: ['--gains-method', 'gains'] }),
    flagString((t) => !['universal', 'account'].includes(t)).chain((v) =>
      flagValue('--gains-pooling', v, ['gains.pooling'], ['--report', 'gains']),
    ),
    fc
      .constantFrom('02-29', '13-01', '4-6', '', '04-31')
      .chain((v) => flagValue('--tax-year-start', v, ['gains.taxYearStart'], ['--report', 'gains'])),
    fc
      .oneof(
        fc.constantFrom('0', '11', '1.5', '-1', '', 'one', '99999999999999999999'),
        flagString((t) => !/^\d+$/.test(t) || Number(t) < 1 || Number(t) > 10),
      )
      .chain((v) => flagValue('--long-term-years', v, ['gains.longTermYears'], ['--report', 'gains'])),
    flagString((t) => ![',', ';', 'tab'].includes(t)).chain((v) =>
      flagValue('--delimiter', v, ['csv.delimiter']),
    ),
    flagString((t) => !['.', ','].includes(t)).chain((v) =>
      flagValue('--decimal-separator', v, ['csv.decimalSeparator']),
    ),
    fc.constant({ argv: ['--delimiter', ',', '--decimal-separator', ','], names: ['csv.decimalSeparator'] }),
    fc
      .oneof(
        fc.constantFrom('0', '-1', '1.5', '', 'four', '1e3', '99999999999999999999'),
        flagString((t) => !/^\d+$/.test(t) || Number(t) < 1 || !Number.isSafeInteger(Number(t))),
      )
      .chain((v) => flagValue('--concurrency', v, [])),
    fc
      .oneof(
        fc.constantFrom('0', '-5', 'many', '', '1e9', '99999999999', '50000001'),
        flagString((t) => !/^\d+$/.test(t) || Number(t) < 1 || Number(t) > MAX_SIMULATED_TRANSACTIONS),
      )
      .chain((v) => flagValue('--transactions', v, [], ['--simulator'])),
    fc.constantFrom('0', 'x', '').chain((v) => flagValue('--seed', v, [], ['--simulator'])),
    // Simulator-only flags while the real service is configured.
    fc.constantFrom('--transactions', '--seed').map((flag) => ({ argv: [flag, '100'], names: [flag] })),
    // Destinations.
    fc
      .oneof(
        fc.constantFrom(
          's3://',
          's3://A',
          'http://bucket/x',
          's3:/bucket',
          's3://b/../..',
          's3://-bucket/x',
          's3://bucket..x/y',
        ),
        flagString((t) => !/^s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](\/.*)?$/.test(t)),
      )
      .map((url) => ({ argv: ['--s3', url], names: ['--s3'], alone: true })),
    fc.constant({ argv: ['--s3', 's3://bucket/x', '--out', 'somewhere'], names: ['--s3'], alone: true }),
    fc.constant({ argv: ['--s3-endpoint', 'http://127.0.0.1:9'], names: ['--s3-endpoint'] }),
    fc
      .oneof(
        fc.constantFrom(
          'not a url',
          'ftp://x',
          'file:///etc/passwd',
          '',
          '//host',
          'http//x',
          'http://user:pw@host',
        ),
        flagString((t) => !URL.canParse(t) || !/^https?:$/.test(new URL(t).protocol)),
      )
      .map((endpoint) => ({
        argv: ['--s3', 's3://bucket/x', '--s3-endpoint', endpoint],
        names: ['--s3-endpoint'],
        alone: true,
      })),
    fc
      .oneof(
        fc.constantFrom('', '../x', 'us east 1', 'US-EAST-1', 'a'.repeat(100), 'eu-central-1/x'),
        flagString((t) => !/^[a-z0-9]+(-[a-z0-9]+)*$/.test(t) || t.length > 63),
      )
      .map((region) => ({
        argv: ['--s3', 's3://bucket/x', '--s3-region', region],
        names: ['--s3-region'],
        alone: true,
      })),
    fc.constant({ argv: ['--out', ''], names: ['--out'], alone: true }),
    fc.constant({ argv: ['--out='], names: ['--out'], alone: true }),
    fc.constant({ argv: ['--config', '/nonexistent/pbs-config.json'], names: ['--config', 'config'] }),
    // Flags and arguments the CLI does not have.
    fc
      .oneof(
        fc.constantFrom('--colour', '--profile-guid', '--api-secret', '-x', '--'),
        fc.stringMatching(/^--[a-z][a-z-]{0,12}$/),
      )
      .filter(
        (flag) =>
          !['--help', '--simulator'].includes(flag) &&
          !/^--(profile|period|time-zone|report|changes-since|format|token|category|protocol|hash|window|gains-method|gains-pooling|tax-year-start|long-term-years|delimiter|decimal-separator|transactions|seed|config|concurrency|out|s3|s3-endpoint|s3-region|snapshot)$/.test(
            flag,
          ),
      )
      .map((flag) => ({
        argv: [flag === '--' ? '--' : flag, ...(flag === '--' ? ['extra'] : [])],
        names: [flag === '--' ? 'extra' : flag],
      })),
    fc.constantFrom('--period', '--profile', '--time-zone').map((flag) => ({ argv: [flag], names: [flag] })),
    fc.constant({ argv: ['extra-argument'], names: ['extra-argument'] }),
  )
  .map((bad) => labelled(bad, short(bad)));

describe('the CLI fed bad flags', () => {
  let simulator: RunningSimulator;
  let env: Record<string, string>;
  let dir: string;

  beforeAll(async () => {
    simulator = await startSimulator({ rateLimitPerSecond: 1000 });
    const acme = simulator.profiles.find((p) => p.name === 'acme');
    if (!acme) throw new Error('no acme profile');
    env = {
      PBS_BASE_URL: simulator.url,
      PBS_API_KEY: acme.apiKey,
      PBS_API_SECRET: acme.apiSecret,
      PBS_PROFILE_GUID: acme.profileGuid,
    };
    dir = await mkdtemp(join(tmpdir(), 'pbs-faults-cli-'));
  });
  afterAll(async () => {
    await simulator?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('exits 2 naming the flag or field for every bad flag, with nothing written and no request sent', async () => {
    const tally = new Tally('badInput', 'CLI flags');
    const out = join(dir, 'out');
    try {
      await fc.assert(
        fc.asyncProperty(badCommandLine, async ({ argv, names, alone }) => {
          const args = alone
            ? ['run', '--profile', 'acme', '--period', '2025-10', ...argv]
            : ['run', '--profile', 'acme', '--period', '2025-10', '--out', out, ...argv];
          const stderr: string[] = [];
          const io: CliIo = {
            stdout: { write: () => true },
            stderr: { write: (text: string) => stderr.push(text) },
            env,
            now: () => new Date('2026-11-22T10:00:00.000Z'),
          };
          const logBefore = simulator.requestLog.length;
          let code: number | 'threw';
          try {
            code = await main(args, io);
          } catch {
            code = 'threw';
          }
          const written = await readdir(out).catch(() => [] as string[]);
          const firstLine = stderr.join('').split('\n')[0] ?? '';
          const reached = simulator.requestLog.length > logBefore || written.length > 0;
          tally.add('tried');
          if (code === 'threw' || code === 1) tally.add('crashed');
          if (reached) tally.add('reachedService');
          // The CLI names a request field by its flag (`csv.decimalSeparator` → `--decimal-separator`).
          const named = names.some(
            (name) => firstLine.includes(name) || firstLine.includes(flagOfField(name) ?? name),
          );
          if (code === 2 && !reached && named) tally.add('rejectedCleanly');
          expect({ code, reached, firstLine: named ? 'names it' : firstLine }).toEqual({
            code: 2,
            reached: false,
            firstLine: 'names it',
          });
        }),
        fuzzParameters(1_500),
      );
    } finally {
      tally.record();
    }
  });

  it('parseCommandLine throws only ValidationError naming a flag, for any argument list', () => {
    const tally = new Tally('badInput', 'CLI argument lists (parseCommandLine)');
    const token = fc.oneof(
      fc.constantFrom(
        'run',
        'render',
        'help',
        '--profile',
        '--period',
        '--out',
        '--s3',
        '--s3-endpoint',
        '--s3-region',
        '--transactions',
        '--concurrency',
        '--simulator',
        '--format',
        '-h',
        '--',
        '=',
      ),
      anyString,
    );
    try {
      fc.assert(
        fc.property(fc.array(token, { maxLength: 8 }), fc.boolean(), (argv, configured) => {
          try {
            parseCommandLine(argv, configured ? { PBS_BASE_URL: 'http://127.0.0.1:9' } : {});
          } catch (error) {
            tally.add('tried');
            const clean = error instanceof ValidationError && error.field !== '';
            if (clean) tally.add('rejectedCleanly');
            else tally.add('crashed');
            expect(clean).toBe(true);
          }
        }),
        fuzzParameters(3_000),
      );
    } finally {
      tally.record();
    }
  });
});

// ---------------------------------------------------------------------------------------------
// parseExportRequest, directly
// ---------------------------------------------------------------------------------------------

describe('parseExportRequest fed arbitrary values', () => {
  /** Parses `input`; a valid result must parse again to itself, a refusal must name its fields. */
  function check(tally: Tally<'badInput'>, input: unknown): void {
    let parsed: unknown;
    try {
      parsed = parseExportRequest(input);
    } catch (error) {
      tally.add('tried');
      const clean =
        error instanceof RequestValidationError &&
        error.field !== '' &&
        error.issues.length > 0 &&
        error.issues.every((issue) => issue.field !== '' && issue.reason !== '');
      if (clean) tally.add('rejectedCleanly');
      else tally.add('crashed');
      expect(clean ? 'named' : error).toBe('named');
      return;
    }
    expect(parseExportRequest(parsed)).toEqual(parsed);
  }

  it('either returns a request that parses again to itself or throws RequestValidationError naming every field, for any JS value', () => {
    const tally = new Tally('badInput', 'parseExportRequest: any value');
    try {
      fc.assert(
        fc.property(
          fc.anything({
            withBigInt: true,
            withBoxedValues: true,
            withDate: true,
            withMap: true,
            withSet: true,
            withNullPrototype: true,
            withObjectString: true,
            withSparseArray: true,
            withTypedArray: true,
            withUnicodeString: true,
          }),
          (input) => check(tally, input),
        ),
        fuzzParameters(3_000),
      );
    } finally {
      tally.record();
    }
  });

  it('either returns a request or throws RequestValidationError naming every field, for any JSON value', () => {
    const tally = new Tally('badInput', 'parseExportRequest: any JSON');
    try {
      fc.assert(
        fc.property(fc.jsonValue(), (input) => check(tally, input)),
        fuzzParameters(3_000),
      );
    } finally {
      tally.record();
    }
  });

  it('either returns a request or throws RequestValidationError naming every field, for requests mixing good and bad fields', () => {
    const tally = new Tally('badInput', 'parseExportRequest: mixed fields');
    const maybe = <T>(good: fc.Arbitrary<T>, bad: fc.Arbitrary<unknown>) =>
      fc.option(fc.oneof({ weight: 3, arbitrary: good }, { weight: 1, arbitrary: bad }), { nil: undefined });
    const request = fc.record(
      {
        profile: maybe(fc.constantFrom('acme', 'a', 'A-b_9'), hostileString),
        period: maybe(
          fc.constantFrom('2025', '2025-10', { from: '2025-01-05', to: '2025-02-10' }),
          badPeriod,
        ),
        timeZone: maybe(fc.constantFrom('UTC', 'Europe/Berlin', 'Asia/Kathmandu'), hostileString),
        reports: maybe(fc.subarray(REPORT_NAMES, { minLength: 1 }), badNameList(REPORT_NAMES)),
        changesSince: maybe(fc.constantFrom('2025-06-01', '2025-06-01T00:00:00Z'), hostileString),
        formats: maybe(fc.subarray(['csv', 'xlsx'], { minLength: 1 }), badNameList(['csv', 'xlsx'])),
        filters: maybe(
          fc.record(
            { tokens: fc.array(fc.constantFrom('ETH', 'USDC')), hash: fc.constant('0xabc') },
            { requiredKeys: [] },
          ),
          notAnObject,
        ),
        protocols: maybe(fc.constantFrom('all', ['Lido'], ['Lido', 'Lido']), notAString),
        window: maybe(fc.constantFrom('month', 'week', 'day', 'year'), hostileString),
        csv: maybe(
          fc.constantFrom(
            { delimiter: ';' },
            { decimalSeparator: ',' },
            { delimiter: '\t', decimalSeparator: ',' },
          ),
          notAnObject,
        ),
        gains: maybe(
          fc.constantFrom(
            { method: 'hifo' },
            { taxYearStart: '04-06', longTermYears: 2 },
            { taxRules: 'uk' },
            { taxRules: 'us', method: 'lifo', transferFee: 'basis' },
            { taxRules: 'de', protocolMoves: 'non-taxable', transferToleranceHours: 1.5 },
          ),
          notAnObject,
        ),
      },
      { requiredKeys: [] },
    );
    try {
      fc.assert(
        fc.property(request, (input) => check(tally, input)),
        fuzzParameters(3_000),
      );
    } finally {
      tally.record();
    }
  });
});
