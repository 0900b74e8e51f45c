/**
 * How the project's simulator says that its answers are demo data: this response header on every
 * answer, whatever address it is reached at (embedded, `npm run serve`, or stand-alone through
 * `PBS_BASE_URL`). A client that sees it on a successful answer records it (`servedDemoData`),
 * and the export then marks its files as DEMO DATA. The real service never sends it.
 */
export const DEMO_DATA_HEADER = 'x-pbs-demo-data';

/** The value the simulator sends; any non-empty value marks demo data. */
export const DEMO_DATA_VALUE = 'simulator; not a real portfolio';

/** Whether a response's headers carry the simulator's demo-data marking. */
export function isDemoDataAnswer(headers: Headers): boolean {
  const value = headers.get(DEMO_DATA_HEADER);
  return value !== null && value.trim() !== '';
}
