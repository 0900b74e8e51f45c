/** What `run` and `render` add for proof (README: Proof): the manifest's signer and its chain. */
import type { S3Client } from '@aws-sdk/client-s3';
import { ValidationError } from '../errors.ts';
import type { ExportRequest } from '../export/index.ts';
import {
  findPreviousSet,
  folderSetStore,
  localKeySigner,
  type ManifestSigner,
  type PreviousSet,
  SigningKeyError,
  s3SetStore,
} from '../proof/index.ts';
import type { Destination } from './args.ts';

/** The signer of `--signing-key FILE`, read before anything is fetched; undefined without the flag. */
export async function signerOf(file: string | undefined): Promise<ManifestSigner | undefined> {
  if (file === undefined) return undefined;
  try {
    return await localKeySigner(file);
  } catch (error) {
    if (error instanceof SigningKeyError)
      throw new ValidationError('--signing-key', error.message, { cause: error });
    throw error;
  }
}

/** Finds, in the run's destination, the set a new set of `request` continues. */
export function previousSetIn(
  destination: Destination,
  s3: S3Client | undefined,
): (request: ExportRequest, periodStart: string) => Promise<PreviousSet | null> {
  const store =
    destination.kind === 'folder' || s3 === undefined
      ? folderSetStore(destination.kind === 'folder' ? destination.dir : '.')
      : s3SetStore(s3, destination.bucket, destination.prefix);
  return (request, periodStart) => findPreviousSet(store, request.profile, periodStart);
}
