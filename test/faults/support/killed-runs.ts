/**
 * CLI runs as a user starts them (`node --import tsx bin/pbs-export.ts run …` in its own process,
 * its own temp folder), killed part-way, and what a reader then finds: in a folder or a bucket,
 * which run folders are complete sets, which look finished (a manifest) while incomplete, which
 * hold files without a manifest; which staging folders, staged keys and scratch folders are left.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { COMMIT_MARKER } from '../../../lib/storage/s3-commit-marker.ts';
import { scratchOwner } from '../../../lib/storage/scratch.ts';
import { listKeys } from './fault-harness.ts';

const BIN = join(import.meta.dirname, '..', '..', '..', 'bin', 'pbs-export.ts');

/** A CLI run in its own process, with the instants (ms after spawn) of the lines it printed. */
export interface CliRun {
  child: ChildProcess;
  /** Resolves when the process has exited: its code, or the signal that ended it. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }>;
  /** The instant (ms after spawn) the output (stdout and stderr) first matched `pattern`, once it does. */
  printed(pattern: RegExp): Promise<number>;
  output(): string;
}

/**
 * Starts `pbs-export run` (or `options.command`) with `args`, its temp folder set to `tmpDir`;
 * `options.preload` is a module imported before the CLI (after tsx).
 */
export function startCliRun(
  args: readonly string[],
  tmpDir: string,
  env: Record<string, string> = {},
  options: { command?: string; preload?: string } = {},
): CliRun {
  const preload = options.preload === undefined ? [] : ['--import', options.preload];
  return startCli([options.command ?? 'run', ...args], tmpDir, env, preload);
}

/**
 * Starts `pbs-export` with `argv` (the command and its flags), its temp folder set to `tmpDir`;
 * `nodeArgs` go to node before the script (e.g. one more `--import`).
 */
export function startCli(
  argv: readonly string[],
  tmpDir: string,
  env: Record<string, string> = {},
  nodeArgs: readonly string[] = [],
): CliRun {
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', ...nodeArgs, BIN, ...argv], {
    env: { ...process.env, ...env, TMPDIR: tmpDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const chunks: { ms: number; text: string }[] = [];
  const waiting: { pattern: RegExp; resolve: (ms: number) => void }[] = [];
  /** The instant of the chunk with which the output first matched `pattern`, or null. */
  const firstMatch = (pattern: RegExp): number | null => {
    let text = '';
    for (const chunk of chunks) {
      text += chunk.text;
      if (pattern.test(text)) return chunk.ms;
    }
    return null;
  };
  const onData = (chunk: Buffer) => {
    chunks.push({ ms: performance.now() - started, text: chunk.toString('utf8') });
    for (const wait of [...waiting]) {
      const ms = firstMatch(wait.pattern);
      if (ms !== null) {
        waiting.splice(waiting.indexOf(wait), 1);
        wait.resolve(ms);
      }
    }
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = once(child, 'exit').then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
    ms: performance.now() - started,
  }));
  return {
    child,
    exited,
    printed: (pattern) => {
      const ms = firstMatch(pattern);
      return ms !== null ? Promise.resolve(ms) : new Promise((resolve) => waiting.push({ pattern, resolve }));
    },
    output: () => chunks.map((chunk) => chunk.text).join(''),
  };
}

/** How a run folder at its final name looks to a reader. */
export type SetState = 'complete' | 'lookedFinishedIncomplete' | 'noManifest';

/**
 * Judges a run folder's files: complete when its manifest lists every other file with the sha256
 * of its bytes and nothing else is there; looking finished while incomplete when a manifest is
 * there but the rest does not match it; without a manifest otherwise.
 */
export function judgeSet(files: ReadonlyMap<string, Buffer>): SetState {
  const manifestBytes = files.get('manifest.json');
  if (manifestBytes === undefined) return 'noManifest';
  let listed: { name: string; sha256: string }[];
  try {
    listed = (JSON.parse(manifestBytes.toString('utf8')) as { files: { name: string; sha256: string }[] })
      .files;
  } catch {
    return 'lookedFinishedIncomplete';
  }
  const names = new Set(listed.map((file) => file.name));
  const matches = listed.every((file) => {
    const bytes = files.get(file.name);
    return bytes !== undefined && createHash('sha256').update(bytes).digest('hex') === file.sha256;
  });
  const extra = [...files.keys()].some((name) => name !== 'manifest.json' && !names.has(name));
  return matches && !extra ? 'complete' : 'lookedFinishedIncomplete';
}

/** What a reader finds under `reports/{profile}/{period}/` of a folder or bucket. */
export interface Findings {
  /** Run folders at their final names, by run id, with their state. */
  runs: Map<string, SetState>;
  /** Staging folders (folder) or staged sets (bucket) left, by name or run id. */
  staging: string[];
  /** For a bucket: run ids whose staged set is complete (manifest and every file it lists). */
  stagedComplete: Set<string>;
  /** For a bucket: run ids whose staged set has its commit marker (`.commit`: the copy phase began). */
  marked: Set<string>;
}

/** Reads a folder sink's period folder (`out/reports/demo/2025`). */
export async function inspectFolder(periodDir: string): Promise<Findings> {
  const findings: Findings = { runs: new Map(), staging: [], stagedComplete: new Set(), marked: new Set() };
  let entries: string[];
  try {
    entries = await readdir(periodDir);
  } catch {
    return findings;
  }
  for (const entry of entries) {
    if (entry.startsWith('.')) {
      findings.staging.push(entry);
      continue;
    }
    const files = new Map<string, Buffer>();
    for (const name of (await readdir(join(periodDir, entry), { recursive: true })) as string[]) {
      const bytes = await readFile(join(periodDir, entry, name)).catch(() => null);
      if (bytes !== null) files.set(name, bytes);
    }
    findings.runs.set(entry, judgeSet(files));
  }
  return findings;
}

/** Reads a bucket's period prefix (`exports/reports/demo/2025/`) and its staging area. */
export async function inspectBucket(
  client: S3Client,
  bucket: string,
  sinkPrefix: string,
  periodPath: string,
): Promise<Findings> {
  const findings: Findings = { runs: new Map(), staging: [], stagedComplete: new Set(), marked: new Set() };
  const byRun = async (prefix: string) => {
    const runs = new Map<string, Map<string, Buffer>>();
    for (const key of await listKeys(client, bucket, prefix)) {
      const [runId, ...rest] = key.slice(prefix.length).split('/');
      if (runId === undefined || rest.length === 0) continue;
      const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      const files = runs.get(runId) ?? new Map<string, Buffer>();
      files.set(rest.join('/'), Buffer.from((await object.Body?.transformToByteArray()) ?? []));
      runs.set(runId, files);
    }
    return runs;
  };
  for (const [runId, files] of await byRun(`${sinkPrefix}/${periodPath}/`)) {
    findings.runs.set(runId, judgeSet(files));
  }
  for (const [runId, files] of await byRun(`${sinkPrefix}/_staging/${periodPath}/`)) {
    findings.staging.push(runId);
    // The commit marker is the set's bookkeeping, not one of its files.
    if (files.delete(COMMIT_MARKER)) findings.marked.add(runId);
    if (judgeSet(files) === 'complete') findings.stagedComplete.add(runId);
  }
  return findings;
}

/** Scratch folders of runs in `tmpDir`, and those of process `pid`. */
export async function scratchFolders(tmpDir: string, pid?: number): Promise<string[]> {
  return (await readdir(tmpDir)).filter((name) => {
    const owner = scratchOwner(name);
    return owner !== null && (pid === undefined || owner.pid === pid);
  });
}
