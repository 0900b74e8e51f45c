/**
 * The export request: what every trigger (HTTP, schedule, CLI) builds and `runExport` consumes.
 * A parsed request is itself a valid input, so it can be stored and parsed again unchanged.
 */
import { IANAZone } from 'luxon';
import { z } from 'zod';
import { PROFILE_NAME } from '../../domain/index.ts';
import { ValidationError } from '../../errors.ts';
import { RATE_SOURCES } from '../../fx/index.ts';
import {
  BROKER_REPORTING,
  LOT_METHODS,
  POOLINGS,
  resolveChoices,
  ruleConflicts,
  ruleOptionProblem,
  ruleSet,
  TAX_RULES,
  type TaxRules,
  takesOption,
  WALLET_ALLOCATIONS,
} from '../../gains/index.ts';
import { journalProblems, journalSchema } from '../../ledger/index.ts';
import { isDayOrInstant, type Period, periodProblem } from './period.ts';

/** Reports an export can produce. */
export const REPORTS = ['transactions', 'movements', 'summary', 'changes', 'gains', 'journal'] as const;
/** One report name. */
export type ReportName = (typeof REPORTS)[number];

/** File formats an export can write. */
export const FORMATS = ['csv', 'xlsx'] as const;
/** One file format. */
export type FormatName = (typeof FORMATS)[number];

/** Lot methods a gains request may choose (none: the rule set's default). */
export { LOT_METHODS };

/** Sizes of the fetch windows a period is split into. */
export const WINDOW_SIZES = ['month', 'week', 'day', 'year'] as const;
/** One window size: the local calendar unit a period is cut into. */
export type WindowSize = (typeof WINDOW_SIZES)[number];

/** Profile names double as path segments (`lib/domain/profile.ts`). */
export { PROFILE_NAME };

/** The reports of a request that names none. */
export const DEFAULT_REPORTS: readonly ReportName[] = ['transactions', 'movements', 'summary'];

const trimmedText = z
  .string()
  .transform((text) => text.trim())
  .refine((text) => text.length > 0, 'must not be empty');

/** Longest filter value or protocol name: they travel in the service's query string. */
export const MAX_FILTER_TEXT = 256;

/** C0 and C1 control characters, DEL, and lone surrogates (which a URL cannot carry as sent). */
const UNSENDABLE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
  /[\u0000-\u001f\u007f-\u009f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** A filter value or protocol name: trimmed, non-empty, at most 256 characters, no controls. */
const filterText = trimmedText
  .refine((text) => text.length <= MAX_FILTER_TEXT, `must be at most ${MAX_FILTER_TEXT} characters`)
  .refine((text) => !UNSENDABLE.test(text), 'must not hold control characters or lone surrogates');

/** Keeps the first occurrence of each value, in order. */
function dedupe<T>(values: readonly T[]): T[] {
  return [...new Set(values)];
}

/** Keeps the canonical order of a fixed vocabulary. */
function inOrder<T extends string>(vocabulary: readonly T[], values: readonly T[]): T[] {
  return vocabulary.filter((value) => values.includes(value));
}

const reportingValue = z.enum(BROKER_REPORTING);
/** Account by account: the accounts a broker reported (a custodial exchange sending Form 1099-DA), and the rest. */
const reportingByAccount = z.strictObject({
  default: reportingValue.default('none'),
  accounts: z.record(z.string().min(1, 'expected an account id'), reportingValue).default({}),
});

/**
 * One reporting for every account, or `{ default, accounts }`: checked by the shape given, so an
 * error names the field inside it (`gains.brokerReporting.accounts.coinbase`), not just the union.
 */
const brokerReportingSchema = z.unknown().transform((value, ctx) => {
  const parsed =
    typeof value === 'string' ? reportingValue.safeParse(value) : reportingByAccount.safeParse(value);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues)
    ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path as (string | number)[] });
  return z.NEVER;
});

/**
 * Options of the gains reports: the jurisdiction rule set, lot method, pools, tax year start
 * (`MM-DD`, in the report zone), the holding period that makes a disposal long term, and the
 * policies. The rule set fixes what its law fixes: a contradicting choice is refused by name
 * (`gains.method: uk rules match by HMRC identification …`); the choices left out take the rule
 * set's defaults (`generic`: fifo, universal, 01-01, 1 year, as before rule sets existed).
 */
const gainsInputSchema = z.strictObject({
  taxRules: z.enum(TAX_RULES as [TaxRules, ...TaxRules[]]).default('generic'),
  method: z.enum(LOT_METHODS).optional(),
  pooling: z.enum(POOLINGS).optional(),
  /**
   * `wallet-from-2025` only: how the unused basis goes to the wallets on 1 January 2025:
   * `records` (default; each wallet keeps its own units' lots) or `account-order` (the accounts'
   * alphabetical order, the rule of earlier versions).
   */
  walletAllocation: z.enum(WALLET_ALLOCATIONS).optional(),
  taxYearStart: z
    .string()
    .regex(/^(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/, 'expected a month and day "MM-DD", e.g. "04-06"')
    .refine(
      (text) => text !== '02-29' && !/^(04|06|09|11)-31$/.test(text) && !/^02-3/.test(text),
      'no such day',
    )
    .optional(),
  longTermYears: z.number().int().min(1).max(10).optional(),
  /**
   * Hours the two sides of a transfer between own accounts may be apart and still pair (a side
   * waits this long for its counterpart across fetch windows).
   */
  transferToleranceHours: z.number().min(0).max(720).default(24),
  /** Events at one instant: in `input` order, or `acquisitions-first` (then moves, then disposals). */
  sameInstantOrder: z.enum(['input', 'acquisitions-first']).default('input'),
  /**
   * Lending supply/withdraw, liquidity add/remove, staking delegate/undelegate: `taxable` disposals
   * and acquisitions at value, or `non-taxable` moves into and out of a position that keep the lots.
   */
  protocolMoves: z.enum(['taxable', 'non-taxable']).default('taxable'),
  /** Basis of a transfer in from outside: `market-value` at receipt, or `zero` with a warning. */
  transferInBasis: z.enum(['market-value', 'zero']).default('market-value'),
  /** A fiat fee on a transfer between own accounts: `dropped`, or added to the moved lots' `basis`. */
  transferFee: z.enum(['dropped', 'basis']).default('dropped'),
  /**
   * The currency of the figures (ISO 4217), which every value of the data must be in: the engine
   * does not convert. Default: the rule set's (uk GBP, de EUR, us USD; generic: not checked). A
   * different one (or `null`: not checked) is the user's explicit choice to compute in the data's
   * currency anyway.
   */
  currency: z
    .string()
    .regex(/^[A-Z]{3}$/, 'expected an ISO 4217 currency code such as "GBP"')
    .nullable()
    .optional(),
  /**
   * `us` only: what a broker reported about the disposals, which picks the Form 8949 box: `none`
   * (no 1099-DA or 1099-B: box I/L from 2025, C/F before), `basis-reported` (G/J, A/D) or
   * `basis-not-reported` (H/K, B/E). Default `none`.
   */
  brokerReporting: brokerReportingSchema.optional(),
  /**
   * Values not in `currency` are converted into it before the engine, at the published rates of
   * `source` (`ecb`: the ECB's daily euro reference rates; `hmrc`: HMRC's monthly rates) of each
   * transaction's day. `files` (name → SHA-256) are the rates files, filled in by the trigger
   * that reads them (the CLI's `--rates`), so the snapshot and manifest record them.
   */
  rates: z
    .strictObject({
      source: z.enum(RATE_SOURCES),
      files: z
        .record(z.string().min(1).max(255), z.string().regex(/^[0-9a-f]{64}$/, 'expected a SHA-256 in hex'))
        .optional(),
    })
    .optional(),
});

const gainsSchema = gainsInputSchema
  .superRefine((gains, ctx) => {
    for (const conflict of ruleConflicts(gains.taxRules, gains)) {
      ctx.addIssue({ code: 'custom', message: conflict.reason, path: [conflict.field] });
    }
    const currency = gains.currency === undefined ? ruleSet(gains.taxRules).currency : gains.currency;
    if (gains.rates !== undefined && currency === null) {
      ctx.addIssue({
        code: 'custom',
        message: 'needs gains.currency, the currency to convert into (generic rules name none)',
        path: ['rates'],
      });
    }
    const { pooling } = resolveChoices(gains.taxRules, gains);
    if (gains.walletAllocation !== undefined && pooling !== 'wallet-from-2025') {
      ctx.addIssue({
        code: 'custom',
        message: 'only allowed with pooling "wallet-from-2025": it allocates the basis on 1 January 2025',
        path: ['walletAllocation'],
      });
    }
    const refused = ruleOptionProblem(gains.taxRules, 'brokerReporting');
    if (gains.brokerReporting !== undefined && refused !== null) {
      ctx.addIssue({ code: 'custom', message: refused, path: ['brokerReporting'] });
    }
  })
  // What a rule set resolves goes last, given or not: a parsed request parses again to the same
  // JSON, key for key (the snapshot records it, and the AWS tasks parse the job's stored request).
  .transform(({ brokerReporting, method, pooling, taxYearStart, longTermYears, currency, ...gains }) => ({
    ...gains,
    ...resolveChoices(gains.taxRules, { method, pooling, taxYearStart, longTermYears }),
    currency: currency === undefined ? ruleSet(gains.taxRules).currency : currency,
    // The rule sets that take it (us: it picks the Form 8949 box) default it to none.
    ...(takesOption(gains.taxRules, 'brokerReporting')
      ? { brokerReporting: brokerReporting ?? ('none' as const) }
      : {}),
  }));

/**
 * The gains options as every place that sets them validates them: a request's `gains`, the
 * deployment config's `gains` (infra/config.ts, through lib/settings.ts) and a monthly item.
 */
export const GainsOptionsSchema = gainsSchema;

/** The gains options of a request with every default filled in. */
export type GainsRequestOptions = z.output<typeof gainsSchema>;

/** Validates gains options alone and fills in their defaults (the value `gains` gets when omitted). */
export function parseGainsOptions(input: unknown): GainsRequestOptions {
  return gainsSchema.parse(input);
}

const periodSchema = z.unknown().superRefine((value, ctx) => {
  const problem = periodProblem(value);
  if (problem !== null) ctx.addIssue({ code: 'custom', message: problem.reason, path: problem.path });
});

const filtersSchema = z
  .strictObject({
    tokens: z.array(filterText).optional(),
    category: filterText.optional(),
    hash: filterText.optional(),
  })
  .transform(({ tokens, category, hash }) => ({
    ...(tokens !== undefined && tokens.length > 0 ? { tokens: dedupe(tokens) } : {}),
    ...(category !== undefined ? { category } : {}),
    ...(hash !== undefined ? { hash } : {}),
  }));

const csvSchema = z
  .strictObject({
    delimiter: z.enum([',', ';', '\t']).optional(),
    decimalSeparator: z.enum(['.', ',']).optional(),
  })
  .transform(({ delimiter, decimalSeparator = '.' }) => ({
    // A decimal comma alone implies the semicolon, as spreadsheets in those locales expect.
    delimiter: delimiter ?? (decimalSeparator === ',' ? ';' : ','),
    decimalSeparator,
  }))
  .refine((csv) => csv.delimiter !== csv.decimalSeparator, {
    message: 'delimiter and decimalSeparator must differ',
    path: ['decimalSeparator'],
  });

/** The zod schema of an export request (input: what callers send; output: {@link ExportRequest}). */
export const ExportRequestSchema = z
  .strictObject({
    profile: z
      .string()
      .regex(PROFILE_NAME, 'expected 1-64 letters, digits, "_" or "-", not starting with "_" or "-"'),
    period: periodSchema,
    timeZone: z
      .string()
      .refine((zone) => IANAZone.isValidZone(zone), 'expected an IANA time zone such as "Europe/Berlin"')
      .optional(),
    reports: z
      .array(z.enum(REPORTS))
      .min(1, 'must name at least one report')
      .transform((reports) => inOrder(REPORTS, reports))
      .default(() => [...DEFAULT_REPORTS]),
    changesSince: z
      .string()
      .refine(isDayOrInstant, 'expected an ISO date "YYYY-MM-DD" or an ISO instant with offset')
      .optional(),
    formats: z
      .array(z.enum(FORMATS))
      .min(1, 'must name at least one format')
      .transform((formats) => inOrder(FORMATS, formats))
      .default(() => [...FORMATS]),
    filters: filtersSchema.default(() => ({})),
    protocols: z
      .union([z.literal('all'), z.array(filterText).min(1, 'must name at least one protocol, or be omitted')])
      .transform((protocols) => (protocols === 'all' ? protocols : dedupe(protocols)))
      .optional(),
    window: z.enum(WINDOW_SIZES).default('month'),
    csv: csvSchema.default(() => ({ delimiter: ',' as const, decimalSeparator: '.' as const })),
    gains: gainsSchema.optional(),
    /** The journal report's chart of accounts, rollup and formats (lib/ledger/request.ts). */
    journal: journalSchema.optional(),
    /**
     * What to do with a transaction id the service sent twice with different content: `fail` the
     * run (absent: the default), or keep the `first` or the `last` copy (in shard, page and item
     * order) in the reports. Every copy stays in the snapshot either way.
     */
    conflictingCopies: z.enum(['fail', 'first', 'last']).optional(),
    /**
     * The preparer's adjustments the gains figures use (lib/adjustments): a version of the
     * profile's document in the store, and optionally the SHA-256 of its exact bytes to insist on.
     * Not kept in the snapshot's header (the snapshot stays what the service sent); the manifest
     * records the version used and its SHA-256.
     */
    adjustments: z
      .strictObject({
        version: z.number().int().positive(),
        sha256: z
          .string()
          .regex(/^[0-9a-f]{64}$/, 'expected 64 lowercase hex digits')
          .optional(),
      })
      .optional(),
  })
  .superRefine((request, ctx) => {
    // Runs even when another field failed, so the reports may still be the raw input.
    const wantsChanges = Array.isArray(request.reports) && request.reports.includes('changes');
    if (wantsChanges && request.changesSince === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: 'required when reports include "changes"',
        path: ['changesSince'],
      });
    }
    // The journal is built from the gains engine: it needs what the gains report needs.
    const wantsJournal = request.reports.includes('journal');
    for (const issue of journalProblems(request.journal, wantsJournal, request.gains))
      ctx.addIssue({ code: 'custom', ...issue });
    if (request.reports.includes('gains') || wantsJournal) {
      // Cost basis needs every transaction: a filtered history would give lots that do not exist.
      const narrowing = [
        ...Object.keys(request.filters).map((key) => `filters.${key}`),
        ...(request.protocols !== undefined ? ['protocols'] : []),
      ];
      for (const field of narrowing) {
        ctx.addIssue({
          code: 'custom',
          message: 'not allowed with the gains report, which needs every transaction',
          path: field.split('.'),
        });
      }
    }
    if (request.gains !== undefined && !request.reports.includes('gains') && !wantsJournal) {
      ctx.addIssue({ code: 'custom', message: 'only allowed when reports include "gains"', path: ['gains'] });
    }
    const zoneProblem = rulesZoneProblem(request.timeZone, request.gains?.taxRules);
    if (zoneProblem !== null) ctx.addIssue({ code: 'custom', message: zoneProblem, path: ['timeZone'] });
    if (request.adjustments !== undefined && !request.reports.includes('gains')) {
      const message = 'only allowed when reports include "gains"';
      ctx.addIssue({ code: 'custom', message, path: ['adjustments'] });
    }
    if (!wantsChanges && request.changesSince !== undefined) {
      ctx.addIssue({
        code: 'custom',
        message: 'only allowed when reports include "changes"',
        path: ['changesSince'],
      });
    }
  })
  .transform((request) => {
    // Asking for the journal asks for the gains reports it ties out to (default options).
    const journal = request.reports.includes('journal');
    const reports =
      journal && !request.reports.includes('gains')
        ? inOrder(REPORTS, [...request.reports, 'gains'])
        : request.reports;
    const { profile, period, timeZone, ...rest } = request;
    return {
      profile,
      period: period as Period,
      // The period's days are the rule set's (uk: London days), else the given zone's, else UTC.
      timeZone: timeZone ?? rulesZone(request.gains?.taxRules) ?? 'UTC',
      ...rest,
      reports,
      ...(reports.includes('gains') ? { gains: request.gains ?? gainsSchema.parse({}) } : {}),
      ...(journal ? { journal: request.journal ?? journalSchema.parse({}) } : {}),
    };
  });

/** The zone a rule set counts its days in (uk: Europe/London), if it fixes one. */
function rulesZone(taxRules: TaxRules | undefined): string | undefined {
  // superRefine runs even when gains failed: only a known rule set's zone.
  if (taxRules === undefined || !TAX_RULES.includes(taxRules)) return undefined;
  return ruleSet(taxRules).timeZone ?? undefined;
}

/**
 * Why `timeZone` cannot be the run's zone under these rules, or null: a rule set that counts its
 * days in one zone (uk: the tax year 6 April to 5 April in London days) needs the period cut in
 * that zone, or a period's end instant falls inside a London day and the engine's tax year takes
 * in the disposals of the next one.
 */
function rulesZoneProblem(timeZone: string | undefined, taxRules: TaxRules | undefined): string | null {
  const zone = rulesZone(taxRules);
  if (timeZone === undefined || zone === undefined || timeZone === zone) return null;
  return `${taxRules} rules count the period and tax year in ${zone} days (their tax years and holding periods are that zone's days); leave the time zone out or give ${JSON.stringify(zone)}, not ${JSON.stringify(timeZone)}`;
}

/** A validated export request with every default filled in. */
export type ExportRequest = z.output<typeof ExportRequestSchema>;

/** What a caller may send: optional fields may be left out. */
export type ExportRequestInput = z.input<typeof ExportRequestSchema>;

/** Which searches to run: all transactions (absent), one per named protocol, or every protocol. */
export type ProtocolSelection = NonNullable<ExportRequest['protocols']>;

/** One problem found in a request. */
export interface RequestIssue {
  /** Dotted path, e.g. `filters.tokens[1]`. */
  field: string;
  reason: string;
}

/** An invalid export request: `field`/`reason` name the first problem, `issues` lists them all. */
export class RequestValidationError extends ValidationError {
  readonly issues: readonly RequestIssue[];

  constructor(issues: readonly [RequestIssue, ...RequestIssue[]]) {
    super(issues[0].field, issues[0].reason);
    this.issues = issues;
    this.message = issues.map((issue) => `${issue.field}: ${issue.reason}`).join('; ');
  }
}

/** Longest key a field path quotes in full; longer ones are cut (they come from the caller). */
const MAX_PATH_KEY = 100;

/**
 * Writes a zod path the way people read it: `filters.tokens[1]`. A key that is not a plain name
 * (empty, dots, brackets, spaces, control characters, …) is written as a quoted index, e.g.
 * `[""]` or `filters["a.b"]`, so every path names its field unambiguously and visibly.
 */
export function formatPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const key of path) {
    if (typeof key === 'number') text += `[${key}]`;
    else if (typeof key === 'string' && /^[A-Za-z_$][\w$-]*$/.test(key) && key.length <= MAX_PATH_KEY)
      text += text === '' ? key : `.${key}`;
    else {
      const name = String(key);
      text += `[${JSON.stringify(name.length > MAX_PATH_KEY ? `${name.slice(0, MAX_PATH_KEY)}…` : name)}]`;
    }
  }
  return text;
}

function toIssues(error: z.ZodError): RequestIssue[] {
  return error.issues.flatMap((issue): RequestIssue[] => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        field: formatPath([...issue.path, key]),
        reason: 'unrecognized key',
      }));
    }
    return [{ field: formatPath(issue.path) || '(request)', reason: issue.message }];
  });
}

/**
 * Validates an export request and fills in defaults. Throws {@link RequestValidationError}
 * (a `ValidationError`) naming the first invalid field by dotted path, with every issue in its
 * message.
 */
export function parseExportRequest(input: unknown): ExportRequest {
  const result = ExportRequestSchema.safeParse(input);
  if (result.success) return result.data;
  const issues = toIssues(result.error);
  const [first, ...rest] = issues;
  throw new RequestValidationError(
    first === undefined ? [{ field: '(request)', reason: 'invalid' }] : [first, ...rest],
  );
}

/**
 * Things about a valid request the caller should know but that do not make it invalid: a hash
 * filter makes the service ignore every other filter (spec, GET /v2/transactions rule 1).
 */
export function requestWarnings(request: ExportRequest): string[] {
  const ignored = hashFilterConflicts(request).map((issue) => issue.field);
  return ignored.length > 0
    ? [`filters.hash is given: the service ignores ${ignored.join(', ')} when a hash is given`]
    : [];
}

/**
 * The filters a hash filter makes the service ignore (spec rule 1), as issues: the CLI warns about
 * them, the HTTP API (which has no channel for warnings) refuses them.
 */
export function hashFilterConflicts(request: ExportRequest): RequestIssue[] {
  const { hash, tokens, category } = request.filters;
  if (hash === undefined) return [];
  const reason = 'not allowed with filters.hash: the service ignores every other filter when a hash is given';
  return [
    ...(tokens !== undefined ? ['filters.tokens'] : []),
    ...(category !== undefined ? ['filters.category'] : []),
    ...(request.protocols !== undefined ? ['protocols'] : []),
  ].map((field) => ({ field, reason }));
}
