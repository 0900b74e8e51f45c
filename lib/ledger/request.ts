/**
 * The `journal` block of an export request (and of a profile's deployment config): the chart of
 * accounts, whether entries are rolled up per month, the formats to write, and format settings.
 */
import { z } from 'zod';
import { findLotMethod, findRuleSet } from '../gains/index.ts';
import { chartSchema } from './chart.ts';
import { LEDGER_FORMATS } from './formats/index.ts';

/** The formats a journal writes when the request names none. */
export const DEFAULT_JOURNAL_FORMATS: readonly string[] = ['csv', 'beancount', 'hledger'];

/** The zod schema of `journal`. */
export const journalSchema = z
  .strictObject({
    /** Ids of the registered ledger formats (lib/ledger/formats/index.ts). */
    formats: z
      .array(
        z.string().refine((id) => LEDGER_FORMATS.some((format) => format.id === id), {
          message: `unknown journal format; expected one of ${LEDGER_FORMATS.map((f) => f.id).join(', ')}`,
        }),
      )
      .min(1, 'must name at least one journal format')
      .transform((ids) => [...new Set(ids)])
      .default(() => [...DEFAULT_JOURNAL_FORMATS]),
    /** `false` (default): one entry per transaction; `true`: one entry per month, summed per account. */
    rollup: z.boolean().default(false),
    chart: chartSchema.default(() => chartSchema.parse({})),
    /** Format-specific settings (e.g. DATEV's Berater- and Mandantennummer), passed to the formats. */
    settings: z.record(z.string(), z.unknown()).default({}),
  })
  .superRefine((journal, ctx) => {
    // Each format's block is checked with its own schema now, not when the files are written.
    for (const id of Object.keys(journal.settings)) {
      if (!LEDGER_FORMATS.some((format) => format.id === id))
        ctx.addIssue({ code: 'custom', path: ['settings', id], message: 'no journal format has this id' });
    }
    for (const id of journal.formats) {
      const schema = LEDGER_FORMATS.find((format) => format.id === id)?.settingsSchema;
      const parsed = schema?.safeParse(journal.settings[id] ?? {});
      for (const issue of parsed?.success === false ? parsed.error.issues : [])
        ctx.addIssue({ code: 'custom', path: ['settings', id, ...issue.path], message: issue.message });
    }
  });

/** `journal` as given. */
export type JournalRequestInput = z.input<typeof journalSchema>;
/** `journal` with every default filled in. */
export type JournalRequest = z.output<typeof journalSchema>;

/** Validates a journal block alone (a deployment config's) and fills in its defaults. */
export function parseJournalOptions(input: unknown): JournalRequest {
  return journalSchema.parse(input);
}

/** One problem of a request's journal block, with its path in the request. */
export interface JournalIssue {
  path: (string | number)[];
  message: string;
}

/**
 * What a request's journal block cannot have, given its reports and gains options: a journal
 * block without the journal report, per-wallet asset accounts without account pooling (only then
 * do the lots, and their cost, belong to a wallet) or with a lot method that refuses them (HMRC
 * identification: one pool per token), and a chart without defaults that does not name an account
 * the method posts to.
 */
export function journalProblems(
  // Loose: the request's refinement runs even when the block itself failed to parse.
  journal:
    | { chart?: { defaults?: string; asset?: { perWallet?: boolean }; 'thirty-day'?: { code?: string } } }
    | undefined,
  wanted: boolean,
  gains: { taxRules?: string; method?: string; pooling?: string } | undefined,
): JournalIssue[] {
  if (journal !== undefined && !wanted)
    return [{ path: ['journal'], message: 'only allowed when reports include "journal"' }];
  if (!wanted) return [];
  const issues: JournalIssue[] = [];
  // Loose: the gains block may be the raw input too; its rule set's defaults fill the gaps.
  const defaults = findRuleSet(gains?.taxRules ?? 'generic')?.defaults;
  const method = gains?.method ?? defaults?.method;
  const pooling = gains?.pooling ?? defaults?.pooling ?? 'universal';
  const extras = method === undefined ? undefined : findLotMethod(method)?.journal;
  if (journal?.chart?.asset?.perWallet === true && extras?.perWalletRefused !== undefined)
    issues.push({ path: ['journal', 'chart', 'asset', 'perWallet'], message: extras.perWalletRefused });
  else if (journal?.chart?.asset?.perWallet === true && pooling !== 'account')
    issues.push({
      path: ['journal', 'chart', 'asset', 'perWallet'],
      message: `per-wallet asset accounts need gains.pooling "account" (lots belong to a wallet only then), not "${pooling}"`,
    });
  // A method's own accounts (HMRC identification: bed and breakfast at a month end, on the 30-day account).
  for (const { kind, why } of extras?.accounts ?? []) {
    if (journal?.chart?.defaults === 'none' && journal.chart[kind]?.code === undefined)
      issues.push({
        path: ['journal', 'chart', kind, 'code'],
        message: `required: the chart sets defaults "none" and ${why}`,
      });
  }
  return issues;
}
