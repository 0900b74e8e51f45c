/**
 * The chart of accounts of a journal: which account each kind of posting goes to. A request's
 * `journal.chart` (also a CLI `--journal-chart FILE` and a profile's deployment config) names
 * the accounts; the defaults are hledger/Beancount-style paths (`Assets:Crypto:BTC`). A chart
 * for a numbered ledger (DATEV, QuickBooks) sets `defaults: "none"` and gives every account.
 */
import { z } from 'zod';
import { ChartError, JournalNameError, shownName } from './errors.ts';
import { type JournalName, type NameRegistry, type NameRule, nameRegistry } from './names.ts';
import { ACCOUNT_KINDS, type Account, type AccountKind, type AccountNamePart } from './types.ts';

/** One account as a chart names it. */
const accountSchema = z.strictObject({
  code: z.string().trim().min(1, 'must not be empty').max(200),
  name: z.string().trim().min(1, 'must not be empty').max(200).optional(),
});

/** An account a chart may leave to the defaults. */
const partialAccount = accountSchema.partial();

const assetSchema = partialAccount.extend({
  /** One account per token (`Assets:Crypto:BTC`, the default) or one digital-assets account. */
  perToken: z.boolean().default(true),
  /** One account per wallet (account id) too: `Assets:Crypto:<wallet>:BTC`. Needs account pooling. */
  perWallet: z.boolean().default(false),
  /** Accounts of named tokens (a numbered chart's `1511` for BTC); the others derive from `code`. */
  tokens: z.record(z.string().min(1), accountSchema).default({}),
});

const incomeSchema = partialAccount.extend({
  /** Account per income category (the engine's: `staking`, `income`, …, and what a chart adds). */
  categories: z.record(z.string().min(1), accountSchema).default({}),
});

/** The kinds of plain (one-account) settings, each with its default path. */
const PLAIN_KINDS = [
  'cash',
  'fee',
  'gain',
  'loss',
  'opening',
  'rounding',
  'unclassified',
  'transfer-out',
  'thirty-day',
  'spent',
] as const satisfies readonly AccountKind[];
type PlainKind = (typeof PLAIN_KINDS)[number];

/**
 * Kinds only some journals post to, so a chart with `defaults: "none"` need not give them: the
 * 30-day account exists only under HMRC identification (then the request requires it, see
 * `journalProblems`), the spent account only when the period has tokens spent on goods or
 * services (known once the history is read: the run is then refused naming the field, see
 * {@link createChart}).
 */
const OCCASIONAL_KINDS: ReadonlySet<PlainKind> = new Set(['thirty-day', 'spent']);

/** Why a numbered chart must give an occasional account, once the journal needs it. */
const NEEDED_FOR: Readonly<Partial<Record<PlainKind, string>>> = {
  'thirty-day': 'with HMRC identification the journal posts bed and breakfast at a month end to it',
  spent:
    'the period has tokens spent on goods or services (transactions of category "expense"), whose value the journal posts to it',
};

/** The default chart (`defaults: "paths"`): hledger/Beancount account paths. */
export const DEFAULT_ACCOUNTS: Readonly<
  Record<PlainKind | 'asset' | 'income', Required<z.input<typeof accountSchema>>>
> = {
  asset: { code: 'Assets:Crypto', name: 'Digital assets' },
  cash: { code: 'Assets:Cash-Clearing', name: 'Cash clearing (fiat side of trades)' },
  fee: { code: 'Expenses:Crypto:Fees', name: 'Transaction fees' },
  gain: { code: 'Income:Crypto:Realised-Gains', name: 'Realised gains on digital assets' },
  loss: { code: 'Expenses:Crypto:Realised-Losses', name: 'Realised losses on digital assets' },
  income: { code: 'Income:Crypto', name: 'Crypto income' },
  opening: { code: 'Equity:Opening-Balances', name: 'Opening balances' },
  rounding: { code: 'Expenses:Rounding', name: 'Rounding differences' },
  unclassified: { code: 'Equity:Unclassified', name: 'Unclassified (to be reviewed)' },
  'transfer-out': { code: 'Equity:Transfers-Out', name: 'Transfers to wallets outside the portfolio' },
  'thirty-day': {
    code: 'Income:Crypto:Thirty-Day-Adjustments',
    name: 'Realised gains: 30-day rule adjustments (bed and breakfast across a month end)',
  },
  spent: {
    code: 'Expenses:Crypto:Spent',
    name: 'Goods and services paid with digital assets (to classify)',
  },
};

/** Income categories the default chart names (others go to the unclassified account). */
export const DEFAULT_INCOME_CATEGORIES: Readonly<Record<string, string>> = {
  staking: 'Staking',
  income: 'Other',
  lending: 'Lending',
  airdrop: 'Airdrops',
  mining: 'Mining',
  interest: 'Interest',
  reward: 'Rewards',
};

/** The zod schema of `journal.chart`. Unknown account kinds are refused by name. */
export const chartSchema = z
  .record(z.string(), z.unknown())
  .superRefine((chart, ctx) => {
    const known = new Set<string>(['defaults', ...ACCOUNT_KINDS]);
    for (const key of Object.keys(chart)) {
      if (!known.has(key))
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `unknown account kind; expected one of ${ACCOUNT_KINDS.join(', ')} (or defaults)`,
        });
    }
  })
  .pipe(
    z.strictObject({
      /** `paths`: kinds left out take the default paths; `none`: every kind must be given. */
      defaults: z.enum(['paths', 'none']).default('paths'),
      asset: assetSchema.default(() => assetSchema.parse({})),
      income: incomeSchema.default(() => incomeSchema.parse({})),
      ...(Object.fromEntries(PLAIN_KINDS.map((kind) => [kind, partialAccount.optional()])) as Record<
        PlainKind,
        z.ZodOptional<typeof partialAccount>
      >),
    }),
  )
  .superRefine((chart, ctx) => {
    if (chart.defaults === 'paths') return;
    // A numbered chart has no default to fall back on: every account posted to must be named.
    for (const kind of [...PLAIN_KINDS, 'asset', 'income'] as const) {
      if (kind !== 'asset' && kind !== 'income' && OCCASIONAL_KINDS.has(kind)) continue;
      if (chart[kind]?.code === undefined)
        ctx.addIssue({
          code: 'custom',
          path: [kind, 'code'],
          message: `required: the chart sets defaults "none" and the journal posts to the ${kind} account`,
        });
    }
  });

/** `journal.chart` as given (input) and after defaults (output). */
export type ChartInput = z.input<typeof chartSchema>;
export type ChartSettings = z.output<typeof chartSchema>;

/** A chart resolved to accounts: what the entries builder posts to. */
export interface Chart {
  /** The one account of a plain kind. */
  account(kind: PlainKind): Account;
  /** The asset account of a token (in a wallet, with per-wallet accounts). */
  asset(token: string, wallet: string): Account;
  /**
   * The income account of a category: the one `categories` names, else (paths) the default
   * category's path under the income account, else (a numbered chart) the income account itself;
   * null for a category the default paths do not know (unclassified).
   */
  income(category: string): Account | null;
  /** Whether the asset accounts are per wallet (moves between wallets are then posted). */
  readonly perWallet: boolean;
  /**
   * Once the run has met every token and wallet: the asset codes given while it ran that change
   * now (a name that first had a segment alone and later shared it with another), old to new.
   * Throws {@link JournalNameError} when two wallets, or two tokens with their own accounts, would
   * share an account.
   */
  renames(): Map<string, string>;
  /** The wallet ids and token symbols whose account name segment carries a hash (after {@link renames}). */
  names(): JournalName[];
}

/** The longest account name segment made from a name in the data (a wallet's xpub fits). */
const SEGMENT_MAX = 128;

/**
 * A path component from a token or wallet name: letters, digits and dashes, starting with a capital
 * or digit, at most 128 characters (Beancount's account name components; hledger takes them too).
 * Two names may share one: the chart makes them distinct ({@link ACCOUNT_SEGMENT}).
 */
export function pathComponent(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9-]+/g, '-').replace(/^-+|-+$/g, '') || 'X';
  const first = cleaned.charAt(0).toUpperCase();
  const component = /[A-Z0-9]/.test(first) ? `${first}${cleaned.slice(1)}` : `X${cleaned}`;
  return component.length <= SEGMENT_MAX ? component : component.slice(0, SEGMENT_MAX).replace(/-+$/, '');
}

/**
 * Account name segments of wallets and tokens: {@link pathComponent}, and where two names of a run
 * share one (`w.1`, `w-1` and `W_1` are all `W-1`), each followed by `-` and a hash of its name.
 */
export const ACCOUNT_SEGMENT: NameRule = {
  target: 'account name segment',
  natural: pathComponent,
  distinct: (original, suffix) =>
    `${pathComponent(original)
      .slice(0, SEGMENT_MAX - suffix.length - 1)
      .replace(/-+$/, '')}-${suffix}`,
};

/** Resolves a parsed chart to its accounts. */
export function createChart(settings: ChartSettings): Chart {
  const paths = settings.defaults === 'paths';
  const plain = (kind: PlainKind | 'asset' | 'income'): Account => {
    const given = settings[kind];
    const fallback = DEFAULT_ACCOUNTS[kind];
    const code = given?.code ?? (paths ? fallback.code : undefined);
    // The schema refuses a missing code under `defaults: "none"`; a chart built by hand may lack it.
    if (code === undefined) {
      const why = kind === 'asset' || kind === 'income' ? undefined : NEEDED_FOR[kind];
      throw new ChartError(
        `journal.chart.${kind}.code`,
        `required: the chart sets defaults "none"${why === undefined ? '' : ` and ${why}`}`,
      );
    }
    const name = given?.name ?? fallback.name;
    return {
      code,
      name,
      kind: kind === 'asset' ? 'asset' : kind === 'income' ? 'income' : kind,
      ...(given?.code === undefined ? { standard: true as const } : {}),
    };
  };
  const base = plain('asset');
  const incomeBase = plain('income');
  const { perToken, perWallet, tokens } = settings.asset;
  const walletNames = nameRegistry(ACCOUNT_SEGMENT, 'wallet id');
  const tokenNames = nameRegistry(ACCOUNT_SEGMENT, 'token symbol');
  const assets = new Map<string, Made>();
  /** The asset code of a token in a wallet, its segments named by `segment`. */
  const codeOf = (token: string, wallet: string, segment: (names: NameRegistry, name: string) => string) => {
    const named = tokens[token];
    const own = named === undefined && perToken;
    const tokenCode = named?.code ?? (own ? `${base.code}:${segment(tokenNames, token)}` : base.code);
    if (!perWallet) return { code: tokenCode, own };
    const walletSegment = segment(walletNames, wallet);
    // The wallet goes between the base and the token (`Assets:Crypto:Ledger:BTC`).
    const code = own
      ? `${base.code}:${walletSegment}:${segment(tokenNames, token)}`
      : `${tokenCode}:${walletSegment}`;
    return { code, own };
  };
  const owners = new Map<string, Made>();
  return {
    perWallet,
    account: (kind) => plain(kind),
    asset(token, wallet) {
      const key = JSON.stringify([wallet, token]);
      const found = assets.get(key);
      if (found !== undefined) return found.account;
      const { code, own } = codeOf(token, wallet, (names, name) => names.name(name));
      const named = tokens[token];
      // The token and the wallet are the data's; the rest of the name (`: `, ` (`) the chart's.
      const nameParts: AccountNamePart[] = [
        ...(named?.name !== undefined
          ? [named.name]
          : perToken
            ? [`${base.name}: `, { data: token }]
            : [base.name]),
        ...(perWallet ? [' (', { data: wallet }, ')'] : []),
      ];
      const account: Account = {
        code,
        name: nameParts.map((part) => (typeof part === 'string' ? part : part.data)).join(''),
        kind: 'asset',
        ...(nameParts.some((part) => typeof part !== 'string') ? { nameParts } : {}),
        ...(named === undefined && base.standard === true ? { standard: true as const } : {}),
      };
      const made = { account, token, wallet, own };
      claimAccount(owners, code, made, perWallet);
      assets.set(key, made);
      return account;
    },
    renames() {
      const out = new Map<string, string>();
      const finalOwners = new Map<string, Made>();
      for (const made of assets.values()) {
        const { code } = codeOf(made.token, made.wallet, (names, name) => names.final(name));
        claimAccount(finalOwners, code, made, perWallet);
        if (code !== made.account.code) out.set(made.account.code, code);
      }
      return out;
    },
    names: () => [...walletNames.distinct(), ...tokenNames.distinct()],
    income(category) {
      const named = settings.income.categories[category];
      if (named !== undefined) return { code: named.code, name: named.name ?? named.code, kind: 'income' };
      // A numbered chart's one income account takes every category its `categories` leave out.
      if (!paths) return incomeBase;
      const word = DEFAULT_INCOME_CATEGORIES[category];
      if (word === undefined) return null;
      return {
        code: `${incomeBase.code}:${word}`,
        name: `${incomeBase.name}: ${category}`,
        kind: 'income',
        ...(incomeBase.standard === true ? { standard: true as const } : {}),
      };
    },
  };
}

/** An asset account the chart made: for whom, and whether its token has an account of its own. */
interface Made {
  account: Account;
  token: string;
  wallet: string;
  own: boolean;
}

/**
 * Notes `code` as `made`'s; refuses it when another wallet has it (per-wallet accounts), or another
 * token where either token has an account of its own (a chart may put several tokens in one).
 */
function claimAccount(owners: Map<string, Made>, code: string, made: Made, perWallet: boolean): void {
  const other = owners.get(code);
  if (other === undefined) {
    owners.set(code, made);
    return;
  }
  const reason = (field: string, name: string) =>
    `cannot be given an account of its own: ${code} is also the account of ${field} ${shownName(name)}`;
  if (perWallet && other.wallet !== made.wallet)
    throw new JournalNameError('wallet id', made.wallet, reason('wallet id', other.wallet));
  if ((made.own || other.own) && other.token !== made.token)
    throw new JournalNameError(
      'token symbol',
      made.token,
      `${reason('token symbol', other.token)} (journal.chart.asset.tokens names one of them: name both there to share one)`,
    );
}

/** Parses a chart (e.g. a `--journal-chart` file's JSON); throws zod's error. */
export function parseChart(input: unknown): ChartSettings {
  return chartSchema.parse(input);
}
