/**
 * A run's filing behind one face: the tax summary and the forms of its rule set (uk: SA108; de:
 * Anlage SO; us: Form 8949, the allocation statement, Schedule 1), filled with the lines as the
 * report stage rounds them, and their tables once the run is done. The report stage only hands it
 * rows; which forms there are is the rule set's business (lib/gains/rules/).
 */
import type { Row, TableSource, TableSpec } from '../domain/index.ts';
import { createCoverage } from './coverage.ts';
import { coverageOptions } from './options.ts';
import { type FormsInput, ruleSet } from './rules/index.ts';
import type { DisposalLine, IncomeLine, ResolvedGainsOptions } from './types.ts';

/** See the module comment. */
export interface Filing {
  /** Lines drained from the engine, rounded as the reports show them, in processing order. */
  add(disposals: readonly DisposalLine[], income: readonly IncomeLine[]): void;
  /** The summary's and the forms' tables, in the order a workbook shows them. */
  tables(input: FormsInput): TableSource[];
}

/** What the forms need beyond the engine's options. */
export interface FilingOptions {
  /** The request's zone (the forms' dates are shown in it). */
  timeZone: string;
  /** The request's gains options, validated (each rule set reads its own, e.g. us `brokerReporting`). */
  gains: Readonly<Record<string, unknown>>;
}

const fixed = (spec: TableSpec, rows: () => Row[]): TableSource => ({
  spec,
  async *rows() {
    yield* rows();
  },
});

/** The filing of a run with resolved engine `options`. */
export function createFiling(options: ResolvedGainsOptions, context: FilingOptions): Filing {
  const rules = ruleSet(options.taxRules);
  const coverage = createCoverage(coverageOptions(options));
  const summary = rules.summary?.(coverage) ?? null;
  const forms =
    rules.forms?.({ options, coverage, timeZone: context.timeZone, gains: context.gains }) ?? null;
  return {
    add(disposals, income) {
      for (const line of disposals) summary?.add(line);
      for (const line of income) summary?.addIncome(line);
      for (const line of disposals) forms?.add(line);
      for (const line of income) forms?.addIncome(line);
    },
    tables(input) {
      const { money } = input;
      return [
        ...(summary === null ? [] : [fixed(summary.spec(money), () => summary.rows(money))]),
        ...(forms?.tables(input) ?? []),
      ];
    },
  };
}
