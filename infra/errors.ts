/** A deployment config that cannot be used; the message lists every problem with its path. */
export class PbsConfigError extends Error {
  override readonly name = 'PbsConfigError';
}
