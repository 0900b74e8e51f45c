/**
 * `pbs-export verify <folder | s3://bucket/prefix>` (README: Proof): every file of every set found
 * there against its manifest, each signature, and each chain back to its first set, in words.
 * Exit 0 only when everything holds, 1 when something does not, 2 for a bad command line.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ValidationError } from '../errors.ts';
import {
  folderSetStore,
  parseManifest,
  type SetStore,
  s3SetStore,
  setsUnder,
  type Verdict,
  VerifyTargetError,
  verifySets,
} from '../proof/index.ts';
import { createS3Client } from '../storage/index.ts';
import type { CliIo } from './io.ts';

/** The usage of the subcommand (also in the main usage). */
export const VERIFY_USAGE = `  pbs-export verify <DIR | s3://bucket/prefix> [--public-key FILE] [--s3-endpoint URL] [--s3-region R]
                                 Check every set there (or the one set): each file against its
                                 manifest (size, SHA-256), the manifest's signature, and the chain
                                 of sets back to the first; exit 0 only when all holds. With
                                 --public-key, every set must be signed by that key
`;

const OPTIONS = {
  'public-key': { type: 'string' },
  's3-endpoint': { type: 'string' },
  's3-region': { type: 'string' },
} as const;

/** A parsed `verify` command line. */
export interface VerifyCommand {
  target:
    | { kind: 'folder'; dir: string }
    | { kind: 's3'; bucket: string; prefix: string; endpoint?: string; region?: string };
  publicKey?: string;
}

/** Parses the arguments after `verify`; throws `ValidationError` naming the argument. */
export function parseVerifyCommandLine(argv: readonly string[]): VerifyCommand {
  let parsed: ReturnType<
    typeof parseArgs<{ args: string[]; options: typeof OPTIONS; allowPositionals: true }>
  >;
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new ValidationError('verify', (error as Error).message, { cause: error });
  }
  const { values, positionals } = parsed;
  if (positionals.length !== 1) {
    throw new ValidationError('verify', 'give one folder or s3://bucket/prefix to verify');
  }
  const where = positionals[0] as string;
  const s3 = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(where);
  const target: VerifyCommand['target'] = s3
    ? {
        kind: 's3',
        bucket: s3[1] as string,
        prefix: (s3[2] ?? '').replace(/\/+$/, ''),
        ...(values['s3-endpoint'] === undefined ? {} : { endpoint: values['s3-endpoint'] }),
        ...(values['s3-region'] === undefined ? {} : { region: values['s3-region'] }),
      }
    : { kind: 'folder', dir: resolve(where) };
  if (target.kind === 'folder' && (values['s3-endpoint'] ?? values['s3-region']) !== undefined) {
    throw new ValidationError(
      values['s3-endpoint'] ? '--s3-endpoint' : '--s3-region',
      'only applies to an s3:// target',
    );
  }
  return { target, ...(values['public-key'] === undefined ? {} : { publicKey: values['public-key'] }) };
}

/** Runs `verify` and returns the exit code. */
export async function verifyMain(argv: readonly string[], io: CliIo): Promise<number> {
  let command: VerifyCommand;
  let publicKeyPem: string | undefined;
  try {
    command = parseVerifyCommandLine(argv);
    publicKeyPem = command.publicKey === undefined ? undefined : await readPublicKey(command.publicKey);
  } catch (error) {
    io.stderr.write(`error: ${(error as Error).message}\nRun "pbs-export help verify" for the usage.\n`);
    return 2;
  }
  try {
    const { store, prefixes } = await openTarget(command);
    const verdict = await verifySets(store, prefixes, publicKeyPem === undefined ? {} : { publicKeyPem });
    io.stdout.write(describeVerdict(verdict, store));
    return verdict.holds ? 0 : 1;
  } catch (error) {
    io.stderr.write(`error: ${(error as Error).message}\n`);
    return 1;
  }
}

/** The verdict in words: each set, what holds (✓) and what does not (✗), then the conclusion. */
export function describeVerdict(verdict: Verdict, store: SetStore): string {
  const lines: string[] = [];
  for (const set of verdict.sets) {
    lines.push(`${set.holds ? 'holds' : 'DOES NOT HOLD'}: ${store.location(set.prefix)}`);
    for (const finding of set.findings) lines.push(`  ${finding.holds ? '✓' : '✗'} ${finding.text}`);
  }
  const failed = verdict.sets.filter((set) => !set.holds).length;
  lines.push(
    failed === 0
      ? `All ${verdict.sets.length} set(s) hold: every file as published, signatures and chains intact.`
      : `${failed} of ${verdict.sets.length} set(s) do not hold (see ✗ above).`,
  );
  return `${lines.join('\n')}\n`;
}

/**
 * The store to read and the sets to verify: the one set when the target is a set's folder (the
 * store then rooted where its chain's links point), else every set under the target.
 */
async function openTarget(command: VerifyCommand): Promise<{ store: SetStore; prefixes: string[] }> {
  const { target } = command;
  const at = target.kind === 'folder' ? target.dir : target.prefix;
  const open = async (root: string) =>
    target.kind === 'folder'
      ? folderSetStore(root)
      : s3SetStore(
          await createS3Client({
            region: target.region ?? 'us-east-1',
            ...(target.endpoint === undefined ? {} : { endpoint: target.endpoint, forcePathStyle: true }),
          }),
          target.bucket,
          root,
        );
  const here = await open(at);
  const own = await here.read('manifest.json');
  if (own !== null) {
    const manifest = parseManifest(own);
    const setPrefix = manifest === null ? undefined : setPrefixOf(manifest);
    const separator = target.kind === 'folder' ? /[\\/]/g : /\//g;
    const normalised = at.replace(separator, '/');
    if (setPrefix !== undefined && normalised.endsWith(`/${setPrefix}`)) {
      const root = at.slice(0, at.length - setPrefix.length - 1);
      return { store: await open(root), prefixes: [setPrefix] };
    }
    return { store: here, prefixes: [''] };
  }
  const prefixes = await setsUnder(here, '');
  if (prefixes.length === 0)
    throw new VerifyTargetError(here.root, 'holds no report set (no manifest.json under it)');
  return { store: here, prefixes };
}

/** Where a set lives relative to its sink's root: `reports/<profile>/<period>/<runId>`. */
function setPrefixOf(manifest: NonNullable<ReturnType<typeof parseManifest>>): string | undefined {
  const profile = manifest.request?.profile;
  return profile === undefined ? undefined : `reports/${profile}/${manifest.period.label}/${manifest.runId}`;
}

async function readPublicKey(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new ValidationError('--public-key', `cannot read ${file}`, { cause: error });
  }
}
