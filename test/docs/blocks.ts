/**
 * The shell blocks of the project's Markdown, and a runner that runs them as a reader would: in a
 * fresh folder that looks like a checkout (every top-level entry of the repository linked into it,
 * none of the folders the commands write), one file's blocks one after another in the same folder
 * (a later block may use what an earlier one wrote), with `bash -e -o pipefail`.
 *
 * A block runs unless the line just before its fence says why it must not:
 * `<!-- docs-test: skip (the reason) -->` (a deployment to AWS, a server that runs until Ctrl-C,
 * the real service). A skip without a reason is an error of the document.
 */
import { spawn } from 'node:child_process';
import { access, mkdtemp, readdir, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fenced ```sh or ```bash block of a Markdown file. */
export interface ShellBlock {
  /** The Markdown file, relative to the repository. */
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  text: string;
  /** Why the block is not run, when marked `<!-- docs-test: skip (reason) -->`. */
  skip?: string;
}

/** A marker line before a fence that the extractor cannot read (no reason, unknown word). */
export class DocsMarkerError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    message: string,
  ) {
    super(`${file}:${line}: ${message}`);
    this.name = 'DocsMarkerError';
  }
}

const FENCE = /^```(\S*)\s*$/;
const MARKER = /^<!--\s*docs-test:\s*(.*?)\s*-->$/;

/** Every ```sh and ```bash block of `markdown`, with its skip reason when it is marked. */
export function extractBlocks(markdown: string, file: string): ShellBlock[] {
  const lines = markdown.split('\n');
  const blocks: ShellBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i] ?? '');
    if (open === null) continue;
    const end = lines.findIndex((line, j) => j > i && /^```\s*$/.test(line));
    if (end < 0) throw new DocsMarkerError(file, i + 1, 'a code block that is never closed');
    const lang = open[1] ?? '';
    const marker = MARKER.exec(lines[i - 1]?.trim() ?? '');
    if (['sh', 'bash'].includes(lang)) {
      const skip = marker === null ? undefined : skipReason(marker[1] ?? '', file, i);
      blocks.push({
        file,
        line: i + 1,
        text: lines.slice(i + 1, end).join('\n'),
        ...(skip === undefined ? {} : { skip }),
      });
    } else if (marker !== null) {
      throw new DocsMarkerError(
        file,
        i,
        `a docs-test marker before a \`\`\`${lang} block, which is never run`,
      );
    }
    i = end;
  }
  return blocks;
}

function skipReason(marker: string, file: string, index: number): string {
  const skip = /^skip\s*\((.+)\)$/.exec(marker);
  if (skip === null) {
    throw new DocsMarkerError(
      file,
      index,
      `"${marker}": a marker is "skip (the reason the block is not run)"`,
    );
  }
  return skip[1] as string;
}

/** Flags whose value is a file or folder a command reads or writes. */
const FILE_FLAGS = new Set([
  '--out',
  '--dir',
  '--snapshot',
  '--rates',
  '--adjustments',
  '--add',
  '--lots-csv',
  '--journal-chart',
  '--journal-settings',
  '--closed',
  '--corrected',
  '--superseded',
  '--config',
  '--manifest',
  '--edits',
]);

/**
 * The files and folders a block names, which must exist once it has run: the values of the flags
 * that take a file or folder, the files `cat` prints, and the folders written by default (`./out`
 * by a `run` or `render` without `--out` or `--s3`, `./rates` by `rates` without `--dir`). Values
 * the shell computes (`$…`), placeholders (`<…>`, `…`) and remote locations are not names.
 */
export function namedFiles(text: string): string[] {
  const names = new Set<string>();
  for (const command of commands(text)) {
    const words = command.split(/\s+/).filter((word) => word !== '');
    words.forEach((word, i) => {
      const [flag, inline] = word.includes('=') ? word.split('=', 2) : [word, undefined];
      if (FILE_FLAGS.has(flag ?? '')) addName(names, inline ?? words[i + 1], flag === '--rates');
      if (word === 'cat') for (const file of words.slice(i + 1)) addName(names, file, false);
    });
    const cli = /pbs-export(?:\.mjs)?(?:\s+--)?\s+(run|render|rates)\b/.exec(command);
    if (cli?.[1] === 'rates' && !words.includes('--dir')) names.add('rates');
    if (
      (cli?.[1] === 'run' || cli?.[1] === 'render') &&
      !words.includes('--out') &&
      !words.includes('--s3')
    ) {
      names.add('out');
    }
    if (/\bnpm run demo\b/.test(command) && !words.includes('--out')) names.add('out');
  }
  return [...names];
}

function addName(names: Set<string>, value: string | undefined, rates: boolean): void {
  if (value === undefined || value.startsWith('-')) return;
  const name = (rates ? value.replace(/^(ecb|hmrc):/, '') : value).replace(/^["']|["']$/g, '');
  if (/[$<>…*|;&]|^[a-z0-9]+:\/\//i.test(name) || name === '') return;
  names.add(name);
}

/** The block's commands: continuation lines joined, comment lines and trailing comments dropped. */
function commands(text: string): string[] {
  return text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.replace(/(^|\s)#(\s.*)?$/, '').trim())
    .filter((line) => line !== '');
}

/** What running one block gave. */
export interface BlockResult {
  block: ShellBlock;
  code: number | null;
  /** The named files that did not exist once the block ran. */
  missing: string[];
  /** The last lines of stdout and stderr, for the failure message. */
  output: string;
  folder: string;
}

/** Entries of the repository never linked into a reader's folder: what the commands write. */
const NOT_LINKED = new Set([
  '.git',
  'out',
  'books',
  'rebuilt',
  'adjustments',
  'rates',
  'coverage',
  'cdk.out',
]);

/** A fresh folder holding links to the repository's top-level entries, as a checkout after `npm ci`. */
export async function readerFolder(repo: string): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'pbs-docs-'));
  for (const entry of await readdir(repo)) {
    if (NOT_LINKED.has(entry) || /^out-/.test(entry) || entry.startsWith('.tmp')) continue;
    await symlink(join(repo, entry), join(folder, entry));
  }
  return folder;
}

/**
 * What a block runs before its text: `npm ci` does nothing (the folder's `node_modules` is the
 * repository's, installed), and `npm test` neither (it is the suite running this very test).
 */
const PRELUDE = `set -eo pipefail
npm() {
  case "$1" in
    ci) echo "(docs test: npm ci not run; node_modules is installed)";;
    test) echo "(docs test: npm test not run; it is the suite running this test)";;
    *) command npm "$@";;
  esac
}
`;

/** Runs `blocks` (not skipped) one after another in `folder`; a block that fails does not stop the next. */
export async function runBlocks(
  blocks: readonly ShellBlock[],
  folder: string,
  timeoutMs: number,
): Promise<BlockResult[]> {
  const results: BlockResult[] = [];
  for (const block of blocks) {
    const { code, output } = await runShell(`${PRELUDE}${block.text}\n`, folder, timeoutMs);
    const missing: string[] = [];
    if (code === 0) {
      for (const name of namedFiles(block.text)) {
        if (!(await exists(join(folder, name)))) missing.push(name);
      }
    }
    results.push({ block, code, missing, output, folder });
  }
  return results;
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

/** The service settings a reader's shell might hold: never passed on, so every block runs on the simulator. */
const SERVICE_VARIABLES = /^(PBS_|AWS_)/;

function runShell(
  script: string,
  cwd: string,
  timeoutMs: number,
): Promise<{ code: number | null; output: string }> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !SERVICE_VARIABLES.test(name)),
  );
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], {
      cwd,
      env: { ...env, NO_UPDATE_NOTIFIER: '1', npm_config_update_notifier: 'false', npm_config_fund: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-6000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => {
      output += `\n(docs test: stopped after ${timeoutMs} ms)`;
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}
