import { resolve } from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import { closedPeriodBefore, guardSink } from '../close/index.ts';
import { ConfigFileUnreadableError, ValidationError } from '../errors.ts';
import {
  type ExportRequest,
  GENERATOR,
  givenInputs,
  PUBLISHING,
  parseExportRequest,
  publicApiBase,
  readSnapshotHeader,
  runExport,
  runPipeline,
} from '../export/index.ts';
import type { RateTable } from '../fx/index.ts';
import type { PbsClient } from '../pbs/index.ts';
import { secretRedactor } from '../redaction.ts';
import { createServiceClient } from '../service-client.ts';
import { loadServiceSettings, MissingSettingsError, splitSettings } from '../settings.ts';
import type { RunningSimulator } from '../simulator/index.ts';
import { profilesWithCounts, startSimulator } from '../simulator/index.ts';
import {
  createLocalSink,
  createS3Client,
  createS3Sink,
  presignDownload,
  type RepairResult,
  type Sink,
  STAGING_SEGMENT,
  type StoredObject,
} from '../storage/index.ts';
import { readAdjustmentsFlag, renderAdjustments } from './adjustments.ts';
import { adjustmentsMain } from './adjustments-command.ts';
import { type CliCommand, type Destination, parseCommandLine, type RunCommand } from './args.ts';
import {
  type CloseCommand,
  closeCommand,
  closeStoreFor,
  isCloseCommand,
  isCloseCommandLine,
  parseCloseCommandLine,
} from './close-commands.ts';
import { FULL_HELP, helpFor } from './help.ts';
import type { CliIo } from './io.ts';
import { describeError, inCliWords } from './messages.ts';
import { checkDestination } from './preflight.ts';
import { createProgressReporter } from './progress.ts';
import { previousSetIn, signerOf } from './proof.ts';
import { readRates, withRates } from './rates.ts';
import { ratesMain } from './rates-command.ts';
import { applyPresentation, displayZone, readSnapshotForRender } from './render-options.ts';
import { earlierRunsBeside } from './run-folders.ts';
import { stopExitCode } from './signals.ts';
import { printLinks, printSummary } from './summary.ts';
import { verifyMain } from './verify-command.ts';

export type { CliIo } from './io.ts';

/**
 * Exit codes: 0 only when every file was published; 130 (SIGINT) and 143 (SIGTERM) when a signal
 * stopped the run before its set was in place (nothing published, scratch folder removed).
 */
export const EXIT = { ok: 0, failed: 1, usage: 2, interrupted: 130, terminated: 143 } as const;

/**
 * Runs the command line and returns the exit code. Errors are printed as one line naming the
 * field or stage and the reason; secrets never reach the output.
 */
export async function main(argv: readonly string[], cliIo: CliIo): Promise<number> {
  const io = redactingIo(cliIo);
  const help = helpFor(argv);
  if (help !== undefined) {
    io.stdout.write(help);
    return EXIT.ok;
  }
  if (argv[0] === 'adjustments') return adjustmentsMain(argv.slice(1), io);
  if (argv[0] === 'rates') return ratesMain(argv.slice(1), io);
  if (argv[0] === 'verify') return verifyMain(argv.slice(1), io);
  let command: CliCommand | CloseCommand;
  try {
    command = isCloseCommandLine(argv) ? parseCloseCommandLine(argv, io.env) : parseCommandLine(argv, io.env);
  } catch (error) {
    // One line and a pointer to the help: 60 lines of usage would bury the line that matters.
    io.stderr.write(`error: ${visible((error as Error).message)}\nRun "pbs-export help" for the usage.\n`);
    return EXIT.usage;
  }
  try {
    if (command.command === 'help') {
      if (command.missingCommand !== true) {
        io.stdout.write(FULL_HELP);
        return EXIT.ok;
      }
      // Flags without a command, most often a forgotten `run`: the usage, and the line last.
      io.stderr.write(
        `${FULL_HELP}\nerror: no command given: put one first, e.g. pbs-export run --period 2025-10\n`,
      );
      return EXIT.usage;
    }
    if (command.command === 'version') {
      io.stdout.write(`${GENERATOR.name} ${GENERATOR.version}\n`);
      return EXIT.ok;
    }
    if (command.command === 'render') return await render(command, io);
    if (isCloseCommand(command)) {
      return await closeCommand(command, io, {
        s3: (destination) => createS3(destination, io),
        connect: (service, profile) => connect({ service }, profile, io),
      });
    }
    return await run(command, io);
  } catch (error) {
    const stopped = stopExitCode(io.signal);
    if (stopped !== undefined) {
      io.stderr.write(
        `${visible(describeError(io.signal?.reason))}: nothing was published, and the run's scratch files were removed\n`,
      );
      return stopped;
    }
    io.stderr.write(`error: ${visible(describeError(error))}\n`);
    return error instanceof ValidationError ? EXIT.usage : EXIT.failed;
  }
}

/** The request of a run, its errors naming the flags the user typed. */
function parseRequest(input: Record<string, unknown>) {
  try {
    return parseExportRequest(input);
  } catch (error) {
    throw inCliWords(error, input);
  }
}

async function run(command: RunCommand, io: RedactingIo): Promise<number> {
  const rates = command.rates ? await readRates(command.rates) : undefined;
  const request = parseRequest(rates ? withRates(command.request, rates) : command.request);
  const adjustments = command.adjustments
    ? await readAdjustmentsFlag(command.adjustments, request)
    : undefined;
  const signer = await signerOf(command.signingKey);
  const s3 = await createS3(command.destination, io);
  await checkDestination(command.destination, s3);
  const service = await connect(command, request.profile, io);
  try {
    const destinations = createSink(command.destination, io, s3);
    const { presign } = destinations;
    // A run never writes into a closed set (lib/close/guard.ts).
    const sink = guardedSink(destinations.sink, command.destination, s3, io);
    const progress = createProgressReporter(io.stdout);
    const result = await runExport(request, {
      client: service.client,
      sink,
      fields: service.client.shape.fields,
      apiBase: service.apiBase,
      demo: service.demo,
      now: io.now,
      ...(command.concurrency !== undefined ? { concurrency: command.concurrency } : {}),
      ...(io.signal ? { signal: io.signal } : {}),
      onProgress: progress.update,
      warn: (message) => io.stderr.write(`warning: ${message}\n`),
      ...(rates ? { rates } : {}),
      ...(adjustments ? { adjustments } : {}),
      ...(signer ? { signer } : {}),
      previous: previousSetIn(command.destination, s3),
      // The closed period before, whose closing balances the opening ones are checked against.
      closedPrevious: (asked, start) =>
        closedPeriodBefore(closeStoreFor(command.destination, s3), asked.profile, start),
    }).finally(() => progress.stop());
    printSummary(io.stdout, result.manifest, sink.root, {
      earlierRuns: await earlierRunsBeside(result.manifest),
    });
    if (presign) printLinks(io.stdout, await presign(result.manifest.files), LINK_EXPIRY_SECONDS);
    return EXIT.ok;
  } finally {
    await service.close();
  }
}

async function render(command: Extract<CliCommand, { command: 'render' }>, io: CliIo): Promise<number> {
  const snapshot = await readSnapshotForRender(command.snapshot, readSnapshotHeader);
  const original = parseExportRequest(snapshot.request);
  const request = applyPresentation(original, command.presentation);
  const shownIn = displayZone(original, command.presentation);
  const header = { ...snapshot, request };
  const rates = await renderRates(command, request);
  const adjustments = await renderAdjustments(command, request);
  const signer = await signerOf(command.signingKey);
  const s3 = await createS3(command.destination, io);
  await checkDestination(command.destination, s3);
  const destinations = createSink(command.destination, io, s3);
  const { presign } = destinations;
  const sink = guardedSink(destinations.sink, command.destination, s3, io);
  const warn = (message: string) => io.stderr.write(`warning: ${visible(message)}\n`);
  const { manifest } = await runPipeline(
    request,
    {
      inputs: givenInputs({ rates, adjustments }),
      source: {
        kind: 'snapshot',
        file: command.snapshot,
        header,
        ...(shownIn === undefined ? {} : { displayTimeZone: shownIn }),
      },
      sink,
      previous: previousSetIn(command.destination, s3),
      publishing: PUBLISHING,
    },
    { now: io.now, warn, ...(io.signal ? { signal: io.signal } : {}), ...(signer ? { signer } : {}) },
  );
  printSummary(io.stdout, manifest, sink.root, { earlierRuns: await earlierRunsBeside(manifest) });
  if (presign) printLinks(io.stdout, await presign(manifest.files), LINK_EXPIRY_SECONDS);
  return EXIT.ok;
}

/**
 * The rates files a render from a snapshot needs: the run's own (`gains.rates` names them; the
 * gains feed checks their SHA-256s), and none when the run converted nothing.
 */
async function renderRates(
  command: Extract<CliCommand, { command: 'render' }>,
  request: ExportRequest,
): Promise<RateTable | undefined> {
  const asked = request.gains?.rates;
  if (command.rates === undefined) {
    if (asked === undefined) return undefined;
    const names = Object.keys(asked.files ?? {}).join(', ');
    throw new ValidationError(
      '--rates',
      `the snapshot's run converted values at ${asked.source.toUpperCase()} rates: give its rates files (${names})`,
    );
  }
  if (asked === undefined)
    throw new ValidationError('--rates', "the snapshot's run converted no values: leave --rates out");
  return readRates(command.rates);
}

interface Connection {
  client: PbsClient;
  apiBase: string;
  /** The data is the simulator's demo data, not a real portfolio (the files say so). */
  demo: boolean;
  close(): Promise<void>;
}

/** Connects to the embedded simulator or to the real service, per the command line. */
export async function connect(
  command: Pick<RunCommand, 'service'>,
  profile: string,
  io: RedactingIo,
): Promise<Connection> {
  if (command.service.kind === 'service') {
    const { configFile } = command.service;
    const settings = await loadServiceSettings(io.env, configFile).catch((error: unknown) => {
      throw settingsError(error, configFile);
    });
    io.addSecrets([settings.apiKey, settings.apiSecret]);
    const { connection, credentials } = splitSettings(settings);
    const client = createServiceClient(connection, credentials);
    return { client, apiBase: publicApiBase(settings.baseUrl), demo: false, close: async () => {} };
  }
  const simulator = await startEmbeddedSimulator(command.service);
  const simulated = simulator.profiles.find((candidate) => candidate.name === profile);
  if (!simulated) {
    await simulator.close();
    const names = simulator.profiles.map((candidate) => candidate.name).join(', ');
    throw new ValidationError(
      '--profile',
      `the embedded simulator has no profile "${profile}" (it has: ${names})`,
    );
  }
  io.stderr.write(`Using the embedded simulator at ${simulator.url} (demo data, not a real portfolio).\n`);
  const client = createServiceClient(
    { baseUrl: simulator.url, requestsPerSecond: 20 },
    { apiKey: simulated.apiKey, apiSecret: simulated.apiSecret, profileGuid: simulated.profileGuid },
  );
  return { client, apiBase: simulator.url, demo: true, close: () => simulator.close() };
}

/**
 * A settings error in the CLI's words: every missing setting by its variable at once, a config
 * file that cannot be read or holds a bad setting as a bad `--config` (exit 2, not a failed export).
 */
function settingsError(error: unknown, configFile: string | undefined): unknown {
  if (error instanceof MissingSettingsError) {
    const variables = error.missing.map(({ field, envName }) => envName ?? field);
    const fields = error.missing.map(({ field }) => field).join(', ');
    return new ValidationError(
      variables.join(', '),
      `${variables.length > 1 ? 'are' : 'is'} required: set ${variables.length > 1 ? 'them' : 'it'} in the environment` +
        ` (or ${fields} in the --config file)`,
      { cause: error },
    );
  }
  if (error instanceof ConfigFileUnreadableError) {
    return new ValidationError('--config', error.message, { cause: error });
  }
  if (error instanceof ValidationError && configFile !== undefined) {
    return new ValidationError('--config', `${configFile}: ${error.message}`, { cause: error });
  }
  return error;
}

async function startEmbeddedSimulator(
  choice: Extract<RunCommand['service'], { kind: 'simulator' }>,
): Promise<RunningSimulator> {
  return startSimulator({
    ...(choice.seed !== undefined ? { seed: choice.seed } : {}),
    ...(choice.transactions !== undefined
      ? { profiles: profilesWithCounts({ demo: choice.transactions }) }
      : {}),
  });
}

/** How long the download links printed after an S3 run stay valid. */
const LINK_EXPIRY_SECONDS = 3600;

interface Destinations {
  sink: Sink;
  /** For S3: presigned download links of stored files, named for the accountant's download. */
  presign?: (files: readonly StoredObject[]) => Promise<{ name: string; url: string }[]>;
}

/**
 * The destination's sink behind the close guard (lib/close/guard.ts): a closed set is never written.
 * Close records the credentials may not read are warned about, not fatal (see `GuardOptions`).
 */
function guardedSink(sink: Sink, destination: Destination, s3: S3Client | undefined, io: CliIo): Sink {
  const store = closeStoreFor(destination, s3);
  return guardSink(sink, store, {
    onUnreadable: (error) =>
      io.stderr.write(
        `warning: could not read the close records in ${store.location('')}: ${visible(describeError(error))}; the set is written without checking them\n`,
      ),
  });
}

/**
 * The run's sink. In S3 its first set first completes the sets that runs of this host killed while
 * copying them into place (files at their final keys without the manifest), and says so.
 */
function createSink(destination: Destination, io: CliIo, client: S3Client | undefined): Destinations {
  if (destination.kind === 'folder') return { sink: createLocalSink(resolve(destination.dir)) };
  if (client === undefined) throw new Error('createSink: an S3 destination needs its client');
  const { bucket } = destination;
  const onRepair = (result: RepairResult) => {
    for (const location of result.completed) {
      io.stderr.write(`Completed ${location}: a killed run had left it without its manifest.\n`);
    }
    for (const { location, error } of result.failed) {
      // A failed listing of the staging area found no set at all: it is not one a killed run left.
      const listing = location.endsWith(`/${STAGING_SEGMENT}/`);
      io.stderr.write(
        listing
          ? `warning: could not look for sets that killed runs left in ${location}: ${visible(describeError(error))}\n`
          : `warning: could not complete ${location}, left by a killed run: ${visible(describeError(error))}\n`,
      );
    }
  };
  return {
    sink: createS3Sink({ client, bucket, prefix: destination.prefix, repairDeadSets: true, onRepair }),
    presign: (files) =>
      Promise.all(
        files.map(async (file) => ({
          name: file.name,
          url: await presignDownload({
            client,
            bucket,
            key: file.key,
            fileName: file.name,
            expiresInSeconds: LINK_EXPIRY_SECONDS,
          }),
        })),
      ),
  };
}

/** The first Node major version the AWS SDK keeps supporting after January 2027 (and Lambda runs). */
const RECOMMENDED_NODE_MAJOR = 22;

/**
 * The S3 client of an S3 destination (one for the check and the run), none for a folder: a run to
 * a folder never loads the AWS SDK (lib/aws-sdk.ts). On a Node older than 22 it says so in one
 * line: `bin/pbs-export.ts` turns off the SDK's own nine-line notice
 * (`AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED`), which says the same.
 */
export async function createS3(destination: Destination, io: CliIo): Promise<S3Client | undefined> {
  if (destination.kind === 'folder') return undefined;
  const version = io.nodeVersion;
  const major = Number(/^v(\d+)\./.exec(version ?? '')?.[1] ?? RECOMMENDED_NODE_MAJOR);
  if (major < RECOMMENDED_NODE_MAJOR) {
    io.stderr.write(
      `note: Node ${version} is past its end of life; Node ${RECOMMENDED_NODE_MAJOR} is recommended ` +
        `(AWS SDK releases after January 2027 need it)\n`,
    );
  }
  return createS3Client({
    region: destination.region ?? 'us-east-1',
    ...(destination.endpoint !== undefined ? { endpoint: destination.endpoint, forcePathStyle: true } : {}),
  });
}

/** The CLI's streams, with every form of the known secrets redacted from what they write. */
interface RedactingIo extends CliIo {
  /** Secrets learnt later (from a config file): redacted from then on too. */
  addSecrets(secrets: readonly string[]): void;
}

/**
 * Wraps the streams so that no form of a secret (raw, URL-encoded, JSON-escaped, base64: see
 * `redaction.ts`) reaches the terminal, whatever a server echoed into an error or a warning.
 * The environment's key and secret are known at once; a config file's when it is read.
 */
function redactingIo(io: CliIo): RedactingIo {
  const secrets = [io.env.PBS_API_KEY, io.env.PBS_API_SECRET].filter(
    (secret): secret is string => typeof secret === 'string' && secret !== '',
  );
  let redact = secretRedactor(secrets);
  const wrap = (stream: { write(text: string): unknown }) => ({
    write: (text: string) => stream.write(redact(text)),
  });
  return {
    ...io,
    stdout: { ...wrap(io.stdout), ...(io.stdout.isTTY !== undefined ? { isTTY: io.stdout.isTTY } : {}) },
    stderr: wrap(io.stderr),
    addSecrets(more) {
      secrets.push(...more.filter((secret) => secret !== ''));
      redact = secretRedactor(secrets);
    },
  };
}

/**
 * A message as it may reach a terminal: control characters (ESC sequences, BEL, NUL, C1 controls,
 * a lone CR) shown as `\uXXXX` escapes, so hostile input echoed in an error cannot drive the
 * terminal; line feeds and tabs stay.
 */
export function visible(message: string): string {
  return message.replace(TERMINAL_CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it escapes
const TERMINAL_CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
