/**
 * The CLI's closing commands, against a folder (`--out`) or a bucket (`--s3`):
 * `close` a profile's period at a run's set, `reopen` it (a recorded exception), `check-closes`
 * (the timeline since each close, a restatement per period that changed) and `restate` (a
 * restatement rebuilt offline from the closed and the corrected snapshot).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { S3Client } from '@aws-sdk/client-s3';
import {
  buildRestatement,
  type CloseStore,
  checkCloses,
  checkCloseTarget,
  closeInWords,
  closeKey,
  closePeriod,
  closePeriodLabel,
  createLocalCloseStore,
  createS3CloseStore,
  governanceLock,
  objectLockEnabled,
  publishRestatement,
  renderRestatement,
  reopenPeriod,
  restatementSentence,
} from '../close/index.ts';
import { ValidationError } from '../errors.ts';
import { newRunId, readSnapshotHeader } from '../export/index.ts';
import type { PbsClient } from '../pbs/index.ts';
import { createLocalSink, createS3Sink, type Sink } from '../storage/index.ts';
import { type Destination, parseDestination, type ServiceChoice } from './args.ts';
import type { CliIo } from './io.ts';
import { readSnapshotFlag } from './render-options.ts';

const COMMANDS = ['close', 'reopen', 'check-closes', 'restate'] as const;

/** The closing commands' names. */
export const CLOSE_COMMANDS: readonly string[] = COMMANDS;

/** A parsed closing command. */
export interface CloseCommand {
  command: (typeof COMMANDS)[number];
  destination: Destination;
  profile?: string;
  period?: string;
  run?: string;
  by: string;
  reason?: string;
  service: ServiceChoice;
  closed?: string;
  corrected?: string;
  /** `restate`: the corrected snapshot of the restatement the rebuilt one supersedes. */
  superseded?: string;
}

export const CLOSE_USAGE = `Closing periods (against --out DIR or --s3 URL, as run):
  pbs-export close --profile P --period 2025-10 --run RUNID [--by NAME] [--reason TEXT]
                                 Close the period at that run's set: never replaced or deleted
  pbs-export reopen --profile P --period 2025-10 --reason TEXT [--by NAME]
                                 Reopen it (recorded; the close stays on file)
  pbs-export check-closes [--profile P] [--simulator | --config FILE]
                                 Ask the timeline what changed in closed periods; a restatement
                                 per period that changed since its last one (superseding it)
  pbs-export restate --closed FILE --corrected FILE [--superseded FILE] [--out DIR]
                                 Rebuild a restatement offline from its snapshots (--superseded:
                                 the corrected snapshot of the restatement it supersedes)
`;

const options = {
  profile: { type: 'string' },
  period: { type: 'string' },
  run: { type: 'string' },
  by: { type: 'string' },
  reason: { type: 'string' },
  out: { type: 'string' },
  s3: { type: 'string' },
  's3-endpoint': { type: 'string' },
  's3-region': { type: 'string' },
  simulator: { type: 'boolean' },
  config: { type: 'string' },
  closed: { type: 'string' },
  corrected: { type: 'string' },
  superseded: { type: 'string' },
} as const;

/** Whether the command line names a closing command. */
export function isCloseCommandLine(argv: readonly string[]): boolean {
  return (COMMANDS as readonly string[]).includes(argv[0] ?? '');
}

/** Whether a parsed command is a closing command. */
export function isCloseCommand(command: { command: string }): command is CloseCommand {
  return (COMMANDS as readonly string[]).includes(command.command);
}

/** Parses a closing command line; errors name the flag. */
export function parseCloseCommandLine(
  argv: readonly string[],
  env: Record<string, string | undefined>,
): CloseCommand {
  let values: ReturnType<typeof parseArgs<{ options: typeof options; allowPositionals: true }>>['values'];
  try {
    values = parseArgs({ args: argv.slice(1), options, allowPositionals: false, strict: true }).values;
  } catch (error) {
    throw new ValidationError('arguments', (error as Error).message, { cause: error });
  }
  const command = argv[0] as CloseCommand['command'];
  const need = (flag: 'profile' | 'period' | 'run' | 'reason' | 'closed' | 'corrected') => {
    const value = values[flag];
    if (value === undefined || value.trim() === '')
      throw new ValidationError(`--${flag}`, `is required by ${command}`);
    return value;
  };
  const configured = values.config !== undefined || (env.PBS_BASE_URL ?? '') !== '';
  const simulated = values.simulator === true || !configured;
  const parsed: CloseCommand = {
    command,
    destination: parseDestination(values.out, values.s3, values['s3-endpoint'], values['s3-region']),
    by: values.by ?? env.PBS_EXPORT_USER ?? safeUserName(),
    service: simulated
      ? { kind: 'simulator' }
      : { kind: 'service', ...(values.config !== undefined ? { configFile: values.config } : {}) },
    ...(values.reason !== undefined ? { reason: values.reason } : {}),
  };
  if (command === 'close') {
    const close = { ...parsed, profile: need('profile'), period: need('period'), run: need('run') };
    // Checked here, so a bad value is named by the flag the user typed (`--period`, not `period`).
    closePeriodLabel(close.period, '--period');
    checkCloseTarget({ profile: close.profile, runId: close.run }, { profile: '--profile', runId: '--run' });
    return close;
  }
  if (command === 'reopen') {
    const reopen = { ...parsed, profile: need('profile'), period: need('period'), reason: need('reason') };
    closePeriodLabel(reopen.period, '--period');
    return reopen;
  }
  if (command === 'restate') {
    return {
      ...parsed,
      closed: need('closed'),
      corrected: need('corrected'),
      ...(values.superseded !== undefined ? { superseded: values.superseded } : {}),
    };
  }
  if (!simulated && values.profile === undefined) {
    throw new ValidationError(
      '--profile',
      'is required against the real service (its credentials serve one profile)',
    );
  }
  return { ...parsed, ...(values.profile !== undefined ? { profile: values.profile } : {}) };
}

function safeUserName(): string {
  try {
    return userInfo().username;
  } catch {
    return 'cli';
  }
}

/** What the closing commands use of the CLI: its S3 client and its service connection. */
export interface CloseCommandHelpers {
  s3(destination: Destination): Promise<S3Client | undefined>;
  connect(service: ServiceChoice, profile: string): Promise<{ client: PbsClient; close(): Promise<void> }>;
}

/** Runs a closing command; returns the exit code (errors are thrown, and printed by `main`). */
export async function closeCommand(
  command: CloseCommand,
  io: CliIo,
  helpers: CloseCommandHelpers,
): Promise<number> {
  const s3 = await helpers.s3(command.destination);
  const { store, sink } = storeOf(command.destination, s3);
  if (command.command === 'close') {
    const bucket = command.destination.kind === 's3' ? command.destination : undefined;
    const lockable = bucket !== undefined && s3 !== undefined && (await objectLockEnabled(s3, bucket.bucket));
    const record = await closePeriod(
      {
        profile: command.profile as string,
        period: command.period as string,
        runId: command.run as string,
        by: command.by,
        ...(command.reason !== undefined ? { reason: command.reason } : {}),
      },
      {
        store,
        now: io.now,
        ...(lockable
          ? { lock: governanceLock({ client: s3 as S3Client, bucket: bucket.bucket, prefix: bucket.prefix }) }
          : {}),
      },
    );
    io.stdout.write(`Closed ${closeInWords(record)}.\n`);
    io.stdout.write(
      `  manifest SHA-256 ${record.manifestSha256}\n  record ${store.location(closeKey(record))}\n`,
    );
    io.stdout.write(lockable ? '  S3 Object Lock: governance retention set on every file of the set\n' : '');
    return 0;
  }
  if (command.command === 'reopen') {
    const record = await reopenPeriod(
      {
        profile: command.profile as string,
        period: command.period as string,
        by: command.by,
        reason: command.reason as string,
      },
      { store, now: io.now },
    );
    io.stdout.write(
      `Reopened ${record.profile} ${record.period} (close ${record.reopens} stays on file), by ${record.by}: ${record.reason}\n`,
    );
    return 0;
  }
  if (command.command === 'restate') return restateOffline(command, io, sink);
  return checkAll(command, io, { store, sink }, helpers);
}

/** The close records of a destination (the folder or bucket of `--out`/`--s3`). */
export function closeStoreFor(destination: Destination, s3: S3Client | undefined): CloseStore {
  return storeOf(destination, s3).store;
}

function storeOf(destination: Destination, s3: S3Client | undefined): { store: CloseStore; sink: Sink } {
  if (destination.kind === 'folder') {
    const root = resolve(destination.dir);
    return { store: createLocalCloseStore(root), sink: createLocalSink(root) };
  }
  if (s3 === undefined) throw new Error('closing against S3 needs its client');
  return {
    store: createS3CloseStore({ client: s3, bucket: destination.bucket, prefix: destination.prefix }),
    sink: createS3Sink({ client: s3, bucket: destination.bucket, prefix: destination.prefix }),
  };
}

async function checkAll(
  command: CloseCommand,
  io: CliIo,
  target: { store: CloseStore; sink: Sink },
  helpers: CloseCommandHelpers,
): Promise<number> {
  const connections: { close(): Promise<void> }[] = [];
  try {
    const result = await checkCloses({
      ...target,
      now: io.now,
      ...(command.profile !== undefined ? { profile: command.profile } : {}),
      timeline: async (profile) => {
        const connection = await helpers.connect(command.service, profile);
        connections.push(connection);
        return connection.client;
      },
    });
    io.stdout.write(`${result.line}\n`);
    for (const restated of result.restated) {
      io.stdout.write(`${restated.manifest.summary}\n  restatement ${target.sink.root}/${restated.prefix}\n`);
    }
    // Another check restated a period at the same moment: nothing is lost when it states what
    // this check found; otherwise this check's findings are in no restatement yet.
    for (const other of result.meanwhile.filter((m) => !m.same)) {
      io.stderr.write(
        `${other.close.profile} ${other.close.period}: another check is restating it from other data (${target.sink.root}/${other.prefix}): run check-closes again once that restatement is published\n`,
      );
    }
    return result.meanwhile.every((m) => m.same) ? 0 : 1;
  } finally {
    for (const connection of connections) await connection.close();
  }
}

async function restateOffline(command: CloseCommand, io: CliIo, sink: Sink): Promise<number> {
  // Each snapshot named first, so a file that is not there is a bad flag, not a raw ENOENT.
  for (const [flag, file] of [
    ['--closed', command.closed],
    ['--corrected', command.corrected],
    ['--superseded', command.superseded],
  ] as const) {
    if (file !== undefined) await readSnapshotFlag(flag, file, readSnapshotHeader);
  }
  const workDir = await mkdtemp(join(tmpdir(), 'pbs-export-restate-'));
  try {
    const restatement = await buildRestatement(
      command.closed as string,
      command.corrected as string,
      workDir,
      command.superseded,
    );
    const rendered = await renderRestatement(restatement, {
      workDir,
      correctedFile: command.corrected as string,
    });
    const prefix = `restatements/${restatement.profile}/${restatement.period}/${newRunId(io.now())}`;
    await publishRestatement(restatement, rendered, { sink, prefix });
    io.stdout.write(`${restatementSentence(restatement)}\n  restatement ${sink.root}/${prefix}\n`);
    return 0;
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}
