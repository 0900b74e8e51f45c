/**
 * Where a profile's adjustments live, with their history: every version is kept and none is ever
 * written over. Locally one file per version (`<dir>/<profile>/adjustments-v<N>.json`, created
 * exclusively and whole: written to a temporary name, fsynced, then linked to its name, so a kill
 * leaves the version whole or absent); on AWS one S3 object per version in the versioned reports
 * bucket (s3-store.ts). A change names the version it was based on (optimistic concurrency): a
 * put based on a version that is no longer the latest is refused naming both.
 *
 * Releases before wrote a version in place, so a kill during the write could leave an empty file
 * under a version's name. Such a file holds no version (nothing could ever read it, so no run used
 * it): the versions skip it, and the next version takes the number after it, so that no file is
 * written over or removed. Any other file that cannot be read stops the store with an error that
 * names it and says what to do.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PROFILE_NAME } from '../domain/index.ts';
import { ValidationError } from '../errors.ts';
import { createFileExclusive } from '../storage/index.ts';
import {
  AdjustmentsDigestError,
  AdjustmentsError,
  AdjustmentsFileError,
  AdjustmentsNotFoundError,
  InvalidAdjustmentsError,
  StaleAdjustmentsError,
} from './errors.ts';
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
   * after validating it; locally, past a number an empty file of an older release holds (see the
   * module comment). `expectedVersion` is the version the change was based on (0: none yet);
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

/**
 * The document to store as the version after `expectedVersion` (numbered `version`, by default
 * `expectedVersion + 1`), validated, and its bytes.
 */
export function nextVersion(
  profile: string,
  document: AdjustmentsDocument,
  expectedVersion: number,
  version = expectedVersion + 1,
): LoadedAdjustments {
  checkProfile(profile);
  checkExpected(expectedVersion);
  const next = validateAdjustments({ ...document, profile, version });
  const bytes = serializeAdjustments(next);
  return { document: next, bytes, sha256: sha256Of(bytes) };
}

/** What a profile's files hold: the newest version, and the highest number a file takes. */
export interface VersionNumbers {
  /** The newest version (0: none). */
  latest: number;
  /** The highest number a file takes (≥ `latest`; more when an empty file of an older release is above it). */
  last: number;
}

/**
 * Where a store keeps its versions, as {@link versionedStore} needs it: the newest version and
 * the last number taken (from one listing), one version read back, and a write that creates a
 * version only if it is absent.
 */
export interface VersionFiles {
  versions(profile: string): Promise<VersionNumbers>;
  get(profile: string, version: number): Promise<LoadedAdjustments>;
  /** Writes a version's bytes; throws when it cannot, `isTaken` telling a version already there. */
  create(profile: string, version: number, bytes: Uint8Array): Promise<void>;
  /** Whether an error of `create` says the version exists (another writer came first). */
  isTaken(error: unknown): boolean;
}

/**
 * The store over `files`: `latest` reads the newest version; `put` validates the next version,
 * refuses (`StaleAdjustmentsError`) when the newest is not the one the change was based on, and
 * creates it exclusively under the number after the last taken, so of two writers based on the
 * same version only one lands.
 */
export function versionedStore(files: VersionFiles): AdjustmentsStore {
  return {
    get: (profile, version) => files.get(profile, version),
    async latest(profile) {
      const { latest } = await files.versions(profile);
      return latest === 0 ? null : files.get(profile, latest);
    },
    async put(profile, document, expectedVersion) {
      let next = nextVersion(profile, document, expectedVersion);
      // One listing for both: a version created after it takes the number this put tries, so
      // the exclusive create below refuses this put rather than store it past that version.
      const { latest, last } = await files.versions(profile);
      if (latest !== expectedVersion) throw new StaleAdjustmentsError(profile, expectedVersion, latest);
      if (last !== latest) next = nextVersion(profile, document, expectedVersion, last + 1);
      try {
        await files.create(profile, next.document.version, next.bytes);
      } catch (error) {
        if (files.isTaken(error))
          throw new StaleAdjustmentsError(profile, expectedVersion, (await files.versions(profile)).latest, {
            cause: error,
          });
        throw error;
      }
      return next;
    },
  };
}

/** What is wrong with a document, without the `adjustments:` its error's message starts with. */
function reasonOf(error: AdjustmentsError): string {
  if (!(error instanceof InvalidAdjustmentsError)) return error.message;
  return error.field === '(document)' ? error.reason : `${error.field}: ${error.reason}`;
}

/**
 * The version the stored bytes of `file` hold; throws `AdjustmentsFileError` naming the file,
 * why it cannot be read and `advice` (what to do) when they hold none.
 */
export function parseStoredVersion(file: string, bytes: Uint8Array, advice: string): LoadedAdjustments {
  try {
    return parseAdjustments(bytes);
  } catch (error) {
    if (!(error instanceof AdjustmentsError)) throw error;
    throw new AdjustmentsFileError(file, `cannot be read as a version: ${reasonOf(error)}; ${advice}`, {
      cause: error,
    });
  }
}

/**
 * Whether the bytes of a version file hold nothing: empty, or only zero bytes (what a crash can
 * leave of a file whose bytes had not reached the disk). Only a write cut off leaves that.
 */
export function holdsNoVersion(bytes: Uint8Array): boolean {
  return bytes.every((byte) => byte === 0);
}

/** A local store, which can also name the empty version files an older release left. */
export interface FileAdjustmentsStore extends AdjustmentsStore {
  /** The files of `profile` that hold no version ({@link holdsNoVersion}), by path; none: empty. */
  emptyVersionFiles(profile: string): Promise<string[]>;
}

/**
 * A store of one file per version under `dir` (`<dir>/<profile>/adjustments-v<N>.json`), each
 * created whole or not at all (`createFileExclusive`). An empty file (what a kill left when an
 * older release wrote a version in place) is skipped; any other file that cannot be read is an
 * `AdjustmentsFileError` naming it and saying what to do.
 */
export function createFileAdjustmentsStore(dir: string): FileAdjustmentsStore {
  const folder = (profile: string) => {
    checkProfile(profile);
    return join(dir, profile);
  };
  const fileOf = (profile: string, version: number) => join(folder(profile), versionName(version));
  /** The numbers of the profile's version files, highest first (temporary files are not). */
  const numbers = async (profile: string): Promise<number[]> => {
    try {
      const found = (await readdir(folder(profile))).map(versionOf);
      return found.filter((version): version is number => version !== null).sort((a, b) => b - a);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
  };
  /** The bytes of a version's file; throws naming the file when it cannot be read. */
  const read = async (profile: string, version: number): Promise<Uint8Array> => {
    const file = fileOf(profile, version);
    try {
      return await readFile(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT')
        throw new AdjustmentsNotFoundError(profile, version, { cause: error });
      throw new AdjustmentsFileError(
        file,
        `cannot be read (${(error as Error).message}): make it readable, or move it out of ${folder(profile)}`,
        { cause: error },
      );
    }
  };
  return {
    ...versionedStore({
      async versions(profile) {
        const all = await numbers(profile);
        for (const version of all) {
          if (!holdsNoVersion(await read(profile, version))) return { latest: version, last: all[0] ?? 0 };
        }
        return { latest: 0, last: all[0] ?? 0 };
      },
      async get(profile, version) {
        const file = fileOf(profile, version);
        const bytes = await read(profile, version);
        if (holdsNoVersion(bytes))
          throw new AdjustmentsFileError(
            file,
            `is empty: a write cut off (a kill or a crash) left it, and it holds no version: the profile's versions skip it; delete it`,
          );
        return parseStoredVersion(
          file,
          bytes,
          `if a kill cut it off while a release before this one wrote it in place, it holds no version: move it out of ${folder(profile)} (the version before it is then the latest); else restore it from a backup (a run that used it recorded its SHA-256 in its manifest); then run the command again`,
        );
      },
      // Whole or not at all; `link` refuses a name taken, so a version is never written over.
      create: (profile, version, bytes) => createFileExclusive(fileOf(profile, version), bytes),
      isTaken: (error) => (error as NodeJS.ErrnoException).code === 'EEXIST',
    }),
    async emptyVersionFiles(profile) {
      const empty: string[] = [];
      for (const version of await numbers(profile)) {
        if (holdsNoVersion(await read(profile, version))) empty.push(fileOf(profile, version));
      }
      return empty.reverse();
    },
  };
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
