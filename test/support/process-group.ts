/**
 * A command started as a terminal's foreground job (its own process group), so a test can do what
 * Ctrl-C does: signal the whole group (npm, its shell, node and any child) at once.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { constants } from 'node:os';
import { join } from 'node:path';

/** A started command and what it printed so far. */
export interface GroupJob {
  child: ChildProcess;
  output: { stdout: string; stderr: string };
  /** Resolves once stdout or stderr holds `text` (rejects if the command ends first). */
  printed(text: string): Promise<void>;
  /** Sends `signal` to the whole process group, as a terminal's Ctrl-C does. */
  signalGroup(signal: NodeJS.Signals): void;
  /** Resolves once the command and every process holding its output ended. */
  ended: Promise<Ended>;
}

/** How a command ended. */
export interface Ended {
  /** The status a shell reports: the exit code, or 128 + the number of the signal that ended it. */
  status: number;
  stdout: string;
  stderr: string;
}

/**
 * The environment of a child: no service configured, npm's cache, HOME and the temp folder under
 * `dir` (so the folders a command leaves in its temp folder can be listed).
 */
export function childEnv(dir: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !name.startsWith('PBS_') && !name.startsWith('npm_')) env[name] = value;
  }
  return {
    ...env,
    npm_config_cache: join(dir, 'npm-cache'),
    npm_config_update_notifier: 'false',
    TMPDIR: join(dir, 'tmp'),
    HOME: dir,
  };
}

/** Starts `command args` in the checkout, in a process group of its own. */
export function startGroup(command: string, args: readonly string[], env: Record<string, string>): GroupJob {
  const output = { stdout: '', stderr: '' };
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const waiting: { text: string; resolve: () => void }[] = [];
  const check = () => {
    for (const wait of waiting.splice(0)) {
      if (output.stdout.includes(wait.text) || output.stderr.includes(wait.text)) wait.resolve();
      else waiting.push(wait);
    }
  };
  child.stdout?.on('data', (chunk: Buffer) => {
    output.stdout += chunk.toString();
    check();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output.stderr += chunk.toString();
    check();
  });
  // 'close': the output's pipes closed too, which a process npm left running still holds.
  const ended = once(child, 'close').then(([code, signal]) => ({
    status: (code as number | null) ?? 128 + constants.signals[signal as NodeJS.Signals],
    ...output,
  }));
  return {
    child,
    output,
    printed: (text) =>
      new Promise<void>((resolve, reject) => {
        waiting.push({ text, resolve });
        check();
        void ended.then(() =>
          reject(
            new Error(`ended without printing ${JSON.stringify(text)}:\n${output.stdout}\n${output.stderr}`),
          ),
        );
      }),
    signalGroup: (signal) => process.kill(-(child.pid as number), signal),
    ended,
  };
}
