/**
 * The closes as the portal reads them from `GET /closes` (their shapes only): what the API
 * client answers and the closes view shows.
 */

/** One close or reopen record, as `GET /closes` lists it. */
export interface CloseRecordView {
  action: 'close' | 'reopen';
  period: string;
  runId: string;
  by: string;
  at: string;
  reason: string;
}

/** One restatement as `GET /closes` lists it (its files' links are fetched on a click, fresh). */
export interface RestatementView {
  period: string;
  prefix: string;
  summary: string;
  checkedAt: string;
  files?: { name: string; bytes: number }[];
}

/** The answer of `GET /closes?profile=`. */
export interface ClosesAnswer {
  periods: { period: string; closed: CloseRecordView | null; history: CloseRecordView[] }[];
  restatements: RestatementView[];
}
