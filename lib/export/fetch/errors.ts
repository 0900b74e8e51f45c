import { PbsExportError } from '../../errors.ts';

/**
 * A shard's listing without a reported total cannot be shown complete: listings of it agree, but
 * each page boundary where rows could have been lost falls on a boundary of every other listing
 * the service allows (it ignores the page size asked, or every size it serves pages there too, and
 * the other order does as well). Not retried: listing again pages the same way.
 */
export class UnprovableShardError extends PbsExportError {
  readonly shardId: string;

  constructor(shardId: string, reason: string) {
    super(
      'unprovable_fetch',
      `shard ${shardId}: the service reports no total, and its listings cannot show that none of its ` +
        `transactions were lost: ${reason}`,
    );
    this.shardId = shardId;
  }
}
