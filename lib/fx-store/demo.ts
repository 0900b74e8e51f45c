/**
 * FOR LOCAL USE: the DEMO rates files (`lib/fx`'s made-up rates, their names starting `DEMO-`)
 * kept in a bucket as the daily rates fetch keeps published ones, so `npm run serve` can run UK
 * and German gains of the demo data from the portal. A deployed stack never calls this: its
 * bucket keeps only what the rates fetch downloaded from the ECB and HMRC.
 */
import { loadS3Sdk } from '../aws-sdk.ts';
import { demoRatesFiles, parseRatesFile } from '../fx/index.ts';
import { type KeptRatesStore, keptKey } from './kept.ts';

/**
 * Keeps every DEMO rates file under `rates/{source}/{sha256}/{name}` (a file kept already is
 * written again with the same bytes) and returns the keys.
 */
export async function keepDemoRates(store: KeptRatesStore): Promise<string[]> {
  const { PutObjectCommand } = await loadS3Sdk();
  const keys: string[] = [];
  for (const file of demoRatesFiles()) {
    const { sha256 } = parseRatesFile(file).info;
    const key = keptKey(file.source, sha256, file.name);
    await store.s3.send(
      new PutObjectCommand({
        Bucket: store.bucket,
        Key: key,
        Body: file.bytes,
        ContentType: 'application/octet-stream',
        Metadata: { demo: 'made-up rates for trying pbs-export, not published ones' },
      }),
    );
    keys.push(key);
  }
  return keys;
}
