import { createHash } from 'node:crypto';
import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { isSystemError } from './errors.ts';

/**
 * The process that owns a scratch or staging folder, and how to tell whether another process of
 * the same host still runs. Folder names carry their owner (`<identity>-<pid>`, see
 * {@link ownerTagOf}), so a run killed with SIGKILL leaves folders the next run can judge without
 * any lock file (a lock file written after the folder would leave a window where a folder has no
 * owner).
 */
export interface ProcessOwner {
  /** Short hash of the host name: folders made on another host (a shared disk) are never judged. */
  host: string;
  pid: number;
  /**
   * What tells apart processes whose host names are equal but whose pids mean different things:
   * on Linux the machine id and the pid namespace (each container has its own). Two containers
   * given the same host name share a disk yet not their pids, so `isAlive` of one says nothing
   * about the other's; with `instance` in the identity they never judge each other's folders.
   * Undefined where neither is known: the host name alone, as before.
   */
  instance?: string;
  /** True while process `pid` of this host exists (whoever owns it). */
  isAlive(pid: number): boolean;
}

/** The owner of a folder, as its name records it. */
export interface OwnerTag {
  host: string;
  pid: number;
}

/** This process, judged through `process.kill(pid, 0)`, with its {@link currentInstance}. */
export function currentProcessOwner(): ProcessOwner {
  const instance = currentInstance();
  return {
    host: hostTag(hostname()),
    pid: process.pid,
    ...(instance === undefined ? {} : { instance }),
    isAlive: pidExists,
  };
}

/**
 * Where this process's pids are meaningful, beyond its host name: the machine id
 * (`/etc/machine-id`, stable across reboots) and the pid namespace (`/proc/self/ns/pid`, one per
 * container), whichever can be read; undefined where neither can (macOS, Windows).
 */
export function currentInstance(): string | undefined {
  const parts = [
    readOr(() => readFileSync('/etc/machine-id', 'utf8').trim()),
    readOr(() => readlinkSync('/proc/self/ns/pid')),
  ];
  return parts.every((part) => part === '') ? undefined : parts.join('|');
}

function readOr(read: () => string): string {
  try {
    return read();
  } catch {
    return '';
  }
}

/**
 * The owner as folder names and commit markers record it: the host hash, folded with the
 * instance when there is one (eight hex digits still), and the pid.
 */
export function ownerTagOf(owner: ProcessOwner): OwnerTag {
  const host = owner.instance === undefined ? owner.host : hostTag(`${owner.host}|${owner.instance}`);
  return { host, pid: owner.pid };
}

/** Eight hex digits of the SHA-256 of a host name (folder names stay short and plain). */
export function hostTag(name: string): string {
  return createHash('sha256').update(name).digest('hex').slice(0, 8);
}

/** `<identity>-<pid>` of `owner`, as folder names carry it; see {@link OWNER_TAG_PATTERN}. */
export function ownerTag(owner: ProcessOwner): string {
  const tag = ownerTagOf(owner);
  return `${tag.host}-${tag.pid}`;
}

/** Source of the regular expression matching {@link ownerTag} with the host and pid captured. */
export const OWNER_TAG_PATTERN = '([0-9a-f]{8})-(\\d{1,10})';

/**
 * True when `tag` names a process of this host (and instance: see {@link ProcessOwner.instance})
 * that no longer exists. Another host's or container's folders and this process's own are never
 * dead; a pid reused by an unrelated process keeps a dead run's folder until that process ends,
 * which errs on the side of keeping.
 */
export function isDeadOwner(tag: OwnerTag, owner: ProcessOwner): boolean {
  const own = ownerTagOf(owner);
  return tag.host === own.host && tag.pid !== own.pid && !owner.isAlive(tag.pid);
}

function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return isSystemError(error, 'EPERM');
  }
}
