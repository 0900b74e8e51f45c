/** The simulator of the Portfolio Balance Service API V2 (see shared/spec and GAPS.md). */

export type { BalanceFaults, BalanceItem } from './balances.ts';
export { balanceFaultError, banner, editsError, parseCliArgs, readEditsFile, USAGE } from './cli.ts';
export { CATEGORIES, Portfolio, PROTOCOLS, TOKENS } from './data.ts';
export { CliUsageError } from './errors.ts';
export type { PastEdit } from './past-edits.ts';
export { DEFAULT_PROFILES, profilesWithCounts } from './profiles.ts';
export { startSimulator } from './server.ts';
export type * from './types.ts';
