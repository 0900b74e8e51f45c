/**
 * Where a profile's adjustments live, with their history: every version is kept and none is ever
 * written over. Locally one file per version (`<dir>/<profile>/adjustments-v<N>.json`, created
 * exclusively); on AWS one S3 object per version in the versioned reports bucket (s3-store.ts).
 * A change names the version it was based on (optimistic concurrency): a put based on a version
 * that is no longer the latest is refused naming both.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ValidationError } from '../errors.ts';
import { PROFILE_NAME } from '../export/plan/request.ts';
import { AdjustmentsDigestError, AdjustmentsNotFoundError, StaleAdjustmentsError } from './errors.ts';
import type { AdjustmentsDocument } from './schema.ts';
import {
  type LoadedAdjustments,
  parseAdjustments,
  serializeAdjustments,
  sha256Of,
  validateAdjustments,
} from './validate.ts';

/** A profile's adjustments, every version kept. */
export interface AdjustmentsStore {
  /** The latest version, or `null` when the profile has none. */
  latest(profile: string): Promise<LoadedAdjustments | null>;
  /** One version; throws `AdjustmentsNotFoundError` when it does not exist. */
  get(profile: string, version: number): Promise<LoadedAdjustments>;
  /**
   * Stores `document` as version `expectedVersion + 1` (its `profile` and `version` are set so),
   * after validating it. `expectedVersion` is the version the change was based on (0: none yet);
   * throws `StaleAdjustmentsError` when another version came first.
   */
  put(profile: string, document: AdjustmentsDocument, expectedVersion: number): Promise<LoadedAdjustments>;
}

/** Name of version `version`'s file or object. */
export function versionName(version: number): string {
  return `adjustments-v${version}.json`;
}

/** The version a name holds, or `null` for another name. */
export function versionOf(name: string): number | null {
  const match = /^adjustments-v([1-9]\d*)\.json$/.exec(name);
  return match === null ? null : Number(match[1]);
}

/** Refuses a profile name a path could escape with (the same rule as a request's profile). */
export function checkProfile(profile: string): void {
  if (!PROFILE_NAME.test(profile))
    throw new ValidationError(
      'profile',
      'expected 1-64 letters, digits, "_" or "-", not starting with "_" or "-"',
    );
}

/** Refuses an expected version that is no whole number ≥ 0. */
export function checkExpected(expectedVersion: number): void {
  if (!Number.isInteger(expectedVersion) || expectedVersion < 0)
    throw new ValidationError(
      'expectedVersion',
      'expected a whole number ≥ 0 (0: the profile has no version yet)',
    );
}

/** The document to store as the version after `expectedVersion`, validated, and its bytes. */
export function nextVersion(
  profile: string,
  document: AdjustmentsDocument,
  expectedVersion: number,
): LoadedAdjustments {
  checkProfile(profile);
  checkExpected(expectedVersion);
  const next = validateAdjustments({ ...document, profile, version: expectedVersion + 1 });
  const bytes = serializeAdjustments(next);
  return { document: next, bytes, sha256: sha256Of(bytes) };
}

/**
 * Where a store keeps its versions, as {@link versionedStore} needs it: the newest version (0:
 * none), one version read back, and a write that creates a version only if it is absent.
 */
export interface VersionFiles {
  latestVersion(profile: string): Promise<number>;
  get(profile: string, version: number): Promise<LoadedAdjustments>;
  /** Writes a version's bytes; throws when it cannot, `isTaken` telling a version already there. */
  create(profile: string, version: number, bytes: Uint8Array): Promise<void>;
  /** Whether an error of `create` says the version exists (another writer came first). */
  isTaken(error: unknown): boolean;
}

/**
 * The store over `files`: `latest` reads the newest version; `put` validates the next version,
 * refuses (`StaleAdjustmentsError`) when the newest is not the one the change was based on, and
 * creates it exclusively, so of two writers based on the same version only one lands.
 */
export function versionedStore(files: VersionFiles): AdjustmentsStore {
  return {
    get: (profile, version) => files.get(profile, version),
    async latest(profile) {
      const version = await files.latestVersion(profile);
      return version === 0 ? null : files.get(profile, version);
    },
    async put(profile, document, expectedVersion) {
      const next = nextVersion(profile, document, expectedVersion);
      const current = await files.latestVersion(profile);
      if (current !== expectedVersion) throw new StaleAdjustmentsError(profile, expectedVersion, current);
      try {
        await files.create(profile, next.document.version, next.bytes);
      } catch (error) {
        if (files.isTaken(error))
          throw new StaleAdjustmentsError(profile, expectedVersion, await files.latestVersion(profile), {
            cause: error,
          });
        throw error;
      }
      return next;
    },
  };
}

/** A store of one file per version under `dir` (`<dir>/<profile>/adjustments-v<N>.json`). */
export function createFileAdjustmentsStore(dir: string): AdjustmentsStore {
  const folder = (profile: string) => {
    checkProfile(profile);
    return join(dir, profile);
  };
  return versionedStore({
    async latestVersion(profile) {
      let names: string[];
      try {
        names = await readdir(folder(profile));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
        throw error;
      }
      return names.reduce((max, name) => Math.max(max, versionOf(name) ?? 0), 0);
    },
    async get(profile, version) {
      let bytes: Uint8Array;
      try {
        bytes = await readFile(join(folder(profile), versionName(version)));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT')
          throw new AdjustmentsNotFoundError(profile, version, { cause: error });
        throw error;
      }
      return parseAdjustments(bytes);
    },
    async create(profile, version, bytes) {
      await mkdir(folder(profile), { recursive: true });
      // `wx`: created only if absent, so a version is never written over (and a racing writer loses).
      await writeFile(join(folder(profile), versionName(version)), bytes, { flag: 'wx' });
    },
    isTaken: (error) => (error as NodeJS.ErrnoException).code === 'EEXIST',
  });
}

/**
 * The version a request names (`request.adjustments`), from `store`; with a `sha256`, refused
 * (`AdjustmentsDigestError`) unless the stored bytes have it.
 */
export async function loadRequestedAdjustments(
  store: AdjustmentsStore,
  profile: string,
  reference: { version: number; sha256?: string | undefined },
): Promise<LoadedAdjustments> {
  const loaded = await store.get(profile, reference.version);
  if (reference.sha256 !== undefined && loaded.sha256 !== reference.sha256)
    throw new AdjustmentsDigestError(versionName(reference.version), reference.sha256, loaded.sha256);
  return loaded;
}
