/**
 * Tax law lives in its rule set (lib/gains/rules/<cc>/): no other code under lib/ compares a value
 * with a jurisdiction's name (`us`, `uk`, `de`) or with `hmrc` (HMRC identification, the uk lot
 * method); it asks the registry (lib/gains/rules/index.ts) what the rule set or method does.
 *
 * One exception, on purpose: `hmrc` also names a rates source, HMRC's monthly exchange-rates
 * files, beside the ECB's (lib/fx parses them, lib/fx-store and the CLI's `rates` command fetch
 * them). A comparison of a rates `source` (or a list of `sources`) there is about a file's format
 * and publication (monthly, no fallback day), not tax law.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const NAMES = ['us', 'uk', 'de', 'hmrc'];
const QUOTED = `(['"\`])(?:${NAMES.join('|')})\\1`;

/** A comparison with a name: `x === 'uk'`, `'uk' !== x`, `case 'uk':`, `list.includes('uk')`. */
const COMPARISONS = [
  new RegExp(`[!=]==?\\s*${QUOTED}`),
  new RegExp(`${QUOTED}\\s*[!=]==?`),
  new RegExp(`\\bcase\\s+${QUOTED}\\s*:`),
  new RegExp(`\\.includes\\(\\s*${QUOTED}\\s*\\)`),
];

/** Where tax law belongs. */
const RULES = `lib${sep}gains${sep}rules${sep}`;
/** The rates-source code, where only a rates `source` may be compared with `hmrc`. */
const RATES = [`lib${sep}fx${sep}`, `lib${sep}fx-store${sep}`, `lib${sep}cli${sep}rates-command.ts`];
const RATES_SOURCE = /\bsource\s*[!=]==?\s*(['"`])hmrc\1|\bsources\.includes\(\s*(['"`])hmrc\2\s*\)/;

/** The lines of `text` that compare a value with a jurisdiction's name, as `line: code`. */
function jurisdictionBranches(file: string, text: string): string[] {
  const ratesCode = RATES.some((folder) => file.startsWith(folder));
  return text
    .split('\n')
    .map((code, index) => ({ code: code.trim(), line: index + 1 }))
    .filter(({ code }) => !code.startsWith('*') && !code.startsWith('//'))
    .filter(({ code }) => COMPARISONS.some((pattern) => pattern.test(code)))
    .filter(({ code }) => !(ratesCode && RATES_SOURCE.test(code)))
    .map(({ code, line }) => `${file}:${line}: ${code}`);
}

async function sources(): Promise<string[]> {
  const entries = await readdir(join(ROOT, 'lib'), { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)))
    .filter((file) => !file.startsWith(RULES))
    .sort();
}

describe('branches on a jurisdiction', () => {
  it('finds none in lib/ outside the rule sets (lib/gains/rules/)', async () => {
    const found: string[] = [];
    for (const file of await sources())
      found.push(...jurisdictionBranches(file, await readFile(join(ROOT, file), 'utf8')));
    expect(found).toEqual([]);
  });

  it('would find one: a comparison with a name, a case label, a membership test', () => {
    const planted = [
      "const later = request.gains?.method === 'hmrc';",
      "if ('us' !== gains.taxRules) return [];",
      "    case 'de':",
      "if (['uk', 'de'].includes(rules) || names.includes('uk')) {}",
      "const words = source === 'hmrc' ? monthly : daily;",
    ].join('\n');
    expect(jurisdictionBranches(`lib${sep}export${sep}x.ts`, planted)).toHaveLength(5);
    // In the rates code, only the rates source's comparison is allowed.
    expect(jurisdictionBranches(`lib${sep}fx${sep}x.ts`, planted)).toHaveLength(4);
  });
});
