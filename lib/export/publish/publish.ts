import { createReadStream } from 'node:fs';
import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  type ManifestSigner,
  type PreviousSet,
  publicKeyFingerprint,
  publicKeyPath,
  SIGNATURE_NAME,
  signatureReference,
} from '../../proof/index.ts';
import type { Sink, SinkObject, SinkSet, StoredObject } from '../../storage/index.ts';
import type { RenderedReports } from '../report/index.ts';
import { MANIFEST_FORMAT, MANIFEST_NAME, type Manifest, type ManifestFile } from './manifest.ts';

/** Where and how `publishReports` stores a run's files. */
export interface PublishTarget {
  sink: Sink;
  /** Folder of the run inside the sink, e.g. `reports/demo/2025/20261122T041500Z-3f9a1c`. */
  prefix: string;
  /** The manifest's `completedAt`. */
  now: () => Date;
  onPublished?: (file: StoredObject) => void;
  /** Told when removing the files of a failed run fails (the run's own error is still thrown). */
  onCleanupError?: (error: unknown) => void;
  /**
   * Stops publishing (Ctrl-C, SIGTERM): the file being written is aborted, what was staged is
   * removed, and the promise rejects with the signal's reason. Once the set is in place it stays.
   */
  signal?: AbortSignal;
  /** Signs the manifest (`manifest.sig` beside it); its public key is published at the sink's root. */
  signer?: ManifestSigner;
  /** The set this one continues (the manifest's `previous`); undefined: not recorded. */
  previous?: PreviousSet | null;
}

/** What `publishReports` stored. */
export interface PublishedReports {
  manifest: Manifest;
  /**
   * Every stored object as the sink described it (name, key, size, SHA-256) and, for reports,
   * its rows: the manifest's files, then the manifest itself.
   */
  files: ManifestFile[];
}

/**
 * Publishes rendered files as one set of the sink (see `SinkSet`), in their order, and the
 * manifest last, once the sink found every file staged as written (`SinkSet.verify`); then the
 * set is put in place, the manifest last (the sink checks again first). Any failure or abort aborts the
 * file being written, removes what the set had staged (and anything already put in place) and
 * rejects, so a failed or stopped run leaves nothing under its final folder. Renders nothing.
 */
export async function publishReports(
  rendered: RenderedReports,
  target: PublishTarget,
): Promise<PublishedReports> {
  target.signal?.throwIfAborted();
  if (target.signer !== undefined) await publishPublicKey(target.sink, target.signer);
  const set = await target.sink.openSet(target.prefix);
  try {
    const published = await storeAll(rendered, set, target);
    target.signal?.throwIfAborted();
    await set.commit(target.signal ? { signal: target.signal } : {});
    return published;
  } catch (error) {
    // Best effort: the error that failed the run is the one the caller sees.
    await set.discard().catch((cleanupError: unknown) => target.onCleanupError?.(cleanupError));
    throw error;
  }
}

async function storeAll(
  rendered: RenderedReports,
  set: SinkSet,
  target: PublishTarget,
): Promise<PublishedReports> {
  const store = async (name: string, contentType: string, write: (out: Writable) => Promise<void>) => {
    target.signal?.throwIfAborted();
    const object = set.create(name, contentType);
    const unlisten = abortOnSignal(object, target.signal);
    try {
      await write(object.stream);
      const described = { ...(await object.done()), name };
      target.signal?.throwIfAborted();
      target.onPublished?.(described);
      return described;
    } catch (error) {
      await object.abort(error);
      // Whatever failed once the signal fired (a destroyed stream), the run was stopped.
      target.signal?.throwIfAborted();
      throw error;
    } finally {
      unlisten();
    }
  };

  const files: ManifestFile[] = [];
  for (const file of rendered.files) {
    const described = await store(file.name, file.contentType, (out) =>
      pipeline(createReadStream(file.file), out),
    );
    files.push(file.rows === undefined ? described : { ...described, rows: file.rows });
  }
  // The manifest vouches for the files: it is written only once each is found staged as written.
  target.signal?.throwIfAborted();
  await set.verify();
  const manifest: Manifest = {
    format: MANIFEST_FORMAT,
    ...rendered.description,
    completedAt: target.now().toISOString(),
    files,
    ...(target.previous === undefined ? {} : { previous: target.previous }),
    ...(target.signer === undefined ? {} : { signature: signatureReference(target.signer) }),
  };
  const manifestBytes = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`);
  // The signature is stored before the manifest, so the manifest stays the set's last object.
  if (target.signer !== undefined) {
    const signature = await target.signer.sign(manifestBytes);
    await store(SIGNATURE_NAME, 'application/octet-stream', async (out) => {
      out.end(signature);
    });
  }
  const stored = await store(MANIFEST_NAME, 'application/json', async (out) => {
    out.end(manifestBytes);
  });
  return { manifest, files: [...files, stored] };
}

/**
 * Publishes the signer's public key at `signing/<fingerprint>.pem` under the sink's root, where
 * `verify` and anyone with OpenSSL find it (the same bytes each time: rewriting it is harmless).
 */
async function publishPublicKey(sink: Sink, signer: ManifestSigner): Promise<void> {
  const object = sink.create(
    publicKeyPath(publicKeyFingerprint(signer.publicKeyPem)),
    'application/x-pem-file',
  );
  try {
    object.stream.end(signer.publicKeyPem);
    await object.done();
  } catch (error) {
    await object.abort(error);
    throw error;
  }
}

/** Aborts `object` when `signal` fires while it is written; returns the listener's remover. */
function abortOnSignal(object: SinkObject, signal: AbortSignal | undefined): () => void {
  if (signal === undefined) return () => {};
  const abort = () => {
    void object.abort(signal.reason);
  };
  signal.addEventListener('abort', abort, { once: true });
  return () => signal.removeEventListener('abort', abort);
}
