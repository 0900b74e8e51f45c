/**
 * Journal names made from names in the data (token symbols, wallet ids). Each journal format
 * allows only some characters in an account name segment or a commodity (see each rule); a name is
 * first cleaned to its natural form under the format's rule, and where two names of one run share
 * that form (case or punctuation folded, cut to length) or it is one the format reserves (the
 * reporting currency, a keyword), each of them gets a suffix made from a hash of its original
 * instead. So the mapping is injective over the run's names, deterministic (the same names give
 * the same journal names whatever their order), and an ordinary name keeps the form it always had.
 * A name that cannot be made distinct fails the run with {@link JournalNameError}.
 */
import { createHash } from 'node:crypto';
import { JournalNameError, type NameField, shownName } from './errors.ts';

/** How one format names a kind of name. */
export interface NameRule {
  /** What the format calls the name (`commodity`, `account name segment`), for records and errors. */
  target: string;
  /** The name cleaned to what the format allows; two originals may share it. */
  natural(original: string): string;
  /** The name made distinct with `suffix` (a hash of the original); must still be allowed. */
  distinct(original: string, suffix: string): string;
  /** Whether the format reserves a name (the reporting currency, a keyword of its syntax). */
  reserved?(name: string): boolean;
  /** How the format compares names (case-folded where it ignores case); identity by default. */
  key?(name: string): string;
}

/** One name as the journal writes it. */
export interface JournalName {
  field: NameField;
  original: string;
  /** What the format writes for it. */
  name: string;
  target: string;
  /** Whether it carries the hash suffix (its natural form was shared or reserved). */
  distinct: boolean;
}

/** Eight hex digits of the SHA-256 of the original's UTF-16 code units (lone surrogates included). */
export function nameSuffix(original: string): string {
  return createHash('sha256')
    .update(Buffer.from(original, 'utf16le'))
    .digest('hex')
    .slice(0, 8)
    .toUpperCase();
}

/** Lone surrogates (which UTF-8 cannot carry, so two would be written the same) as U+FFFD. */
export function wellFormed(text: string): string {
  return text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
}

/** The first `max` code points of `text`. */
export function cutPoints(text: string, max: number): string {
  const points = Array.from(text);
  return points.length <= max ? text : points.slice(0, max).join('');
}

/**
 * The journal names of a run's `originals` under `rule`: the natural form where no other original
 * shares it and the format does not reserve it (nor is it `taken`, names already given, compared by
 * the rule's key), otherwise the distinct form. Throws {@link JournalNameError} when two originals
 * still end up with one name.
 */
export function mapNames(
  originals: Iterable<string>,
  rule: NameRule,
  field: NameField,
  taken: ReadonlySet<string> = new Set(),
): Map<string, JournalName> {
  const key = rule.key ?? ((name: string) => name);
  const unique = [...new Set(originals)];
  const sharing = new Map<string, number>();
  for (const original of unique) {
    const k = key(rule.natural(original));
    sharing.set(k, (sharing.get(k) ?? 0) + 1);
  }
  const takenKeys = new Set([...taken].map(key));
  const out = new Map<string, JournalName>();
  for (const original of unique) {
    const natural = rule.natural(original);
    const k = key(natural);
    const clash = (sharing.get(k) ?? 0) > 1 || rule.reserved?.(natural) === true || takenKeys.has(k);
    const name = clash ? rule.distinct(original, nameSuffix(original)) : natural;
    out.set(original, { field, original, name, target: rule.target, distinct: clash });
  }
  checkInjective(out.values(), rule, field, takenKeys);
  return out;
}

/** Throws unless every name is its own, allowed, and not taken. */
function checkInjective(
  names: Iterable<JournalName>,
  rule: NameRule,
  field: NameField,
  taken: ReadonlySet<string>,
): void {
  const key = rule.key ?? ((name: string) => name);
  const seen = new Map<string, string>();
  for (const { original, name } of names) {
    const k = key(name);
    const other = seen.get(k);
    if (other !== undefined || taken.has(k) || rule.reserved?.(name) === true)
      throw new JournalNameError(
        field,
        original,
        `cannot be given a ${rule.target} of its own: ${name} is ${other === undefined ? 'taken' : `also the ${rule.target} of ${field} ${shownName(other)}`}`,
      );
    seen.set(k, original);
  }
}

/**
 * Names given one at a time, as a run meets them (the chart's account segments while the engine
 * runs), made injective over every name met once the run is over: a name takes its natural form
 * while no other has it (so the entries can be written as they come), one meeting a form already
 * held takes its distinct form, and {@link NameRegistry.final} gives the first holder of a shared
 * form its distinct form too, so the names do not depend on the order they were met in.
 */
export interface NameRegistry {
  /** The name of `original` as written while the run goes on. */
  name(original: string): string;
  /** The name of `original` once every name is known (call after the last {@link name}). */
  final(original: string): string;
  /** The names given a distinct form, once every name is known. */
  distinct(): JournalName[];
}

/** A {@link NameRegistry} under `rule`; names of `field`. */
export function nameRegistry(rule: NameRule, field: NameField): NameRegistry {
  const key = rule.key ?? ((name: string) => name);
  const given = new Map<string, string>();
  /** Per natural form's key: the originals that have it. */
  const holders = new Map<string, string[]>();
  /** Per written name's key: its original (two originals never share one). */
  const used = new Map<string, string>();
  const claim = (original: string, name: string) => {
    const other = used.get(key(name));
    if (other !== undefined && other !== original)
      throw new JournalNameError(
        field,
        original,
        `cannot be given a ${rule.target} of its own: ${name} is also the ${rule.target} of ${field} ${shownName(other)}`,
      );
    used.set(key(name), original);
  };
  const shared = (original: string) => {
    const natural = rule.natural(original);
    return (holders.get(key(natural))?.length ?? 0) > 1 || rule.reserved?.(natural) === true;
  };
  return {
    name(original) {
      const found = given.get(original);
      if (found !== undefined) return found;
      const natural = rule.natural(original);
      const list = holders.get(key(natural)) ?? [];
      list.push(original);
      holders.set(key(natural), list);
      const name =
        list.length === 1 && rule.reserved?.(natural) !== true
          ? natural
          : rule.distinct(original, nameSuffix(original));
      claim(original, name);
      given.set(original, name);
      return name;
    },
    final(original) {
      const name = given.get(original);
      if (name === undefined) throw new Error(`no name was given to ${field} ${shownName(original)}`);
      if (!shared(original) || name !== rule.natural(original)) return name;
      const distinct = rule.distinct(original, nameSuffix(original));
      claim(original, distinct);
      return distinct;
    },
    distinct: () =>
      [...given.keys()].filter(shared).map((original) => ({
        field,
        original,
        name: rule.distinct(original, nameSuffix(original)),
        target: rule.target,
        distinct: true,
      })),
  };
}
