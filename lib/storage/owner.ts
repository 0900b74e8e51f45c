import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import { isSystemError } from './errors.ts';

/**
 * The process that owns a scratch or staging folder, and how to tell whether another process of
 * the same host still runs. Folder names carry their owner (`<host>-<pid>`), so a run killed with
 * SIGKILL leaves folders the next run can judge without any lock file (a lock file written after
 * the folder would leave a window where a folder has no owner).
 */
export interface ProcessOwner {
  /** Short hash of the host name: folders made on another host (a shared disk) are never judged. */
  host: string;
  pid: number;
  /** True while process `pid` of this host exists (whoever owns it). */
  isAlive(pid: number): boolean;
}

/** The owner of a folder, as its name records it. */
export interface OwnerTag {
  host: string;
  pid: number;
}

/** This process, judged through `process.kill(pid, 0)`. */
export function currentProcessOwner(): ProcessOwner {
  return { host: hostTag(hostname()), pid: process.pid, isAlive: pidExists };
}

/** Eight hex digits of the SHA-256 of a host name (folder names stay short and plain). */
export function hostTag(name: string): string {
  return createHash('sha256').update(name).digest('hex').slice(0, 8);
}

/** `<host>-<pid>`, as folder names carry it; see {@link OWNER_TAG_PATTERN}. */
export function ownerTag(owner: OwnerTag): string {
  return `${owner.host}-${owner.pid}`;
}

/** Source of the regular expression matching {@link ownerTag} with the host and pid captured. */
export const OWNER_TAG_PATTERN = '([0-9a-f]{8})-(\\d{1,10})';

/**
 * True when `tag` names a process of this host that no longer exists. Another host's folders and
 * this process's own are never dead; a pid reused by an unrelated process keeps a dead run's
 * folder until that process ends, which errs on the side of keeping.
 */
export function isDeadOwner(tag: OwnerTag, owner: ProcessOwner): boolean {
  return tag.host === owner.host && tag.pid !== owner.pid && !owner.isAlive(tag.pid);
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
