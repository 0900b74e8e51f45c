/**
 * Every command's help: `pbs-export help [COMMAND]` and `pbs-export COMMAND --help` (or `-h`),
 * before the command's own flags are parsed, so each command answers `--help` whatever its flags.
 */
import { ADJUSTMENTS_USAGE } from './adjustments-command.ts';
import { FLAGS_USAGE, RENDER_USAGE, RUN_USAGE, USAGE } from './args.ts';
import { CLOSE_COMMANDS, CLOSE_USAGE } from './close-commands.ts';
import { RATES_USAGE } from './rates-command.ts';
import { VERIFY_USAGE } from './verify-command.ts';

/** The help of each command, by its name. */
const COMMAND_HELP: Readonly<Record<string, string>> = {
  run: `Usage:\n${RUN_USAGE}\n${FLAGS_USAGE}`,
  render: `Usage:\n${RENDER_USAGE}\n${FLAGS_USAGE}`,
  adjustments: `Usage:\n${ADJUSTMENTS_USAGE}`,
  rates: `Usage:\n${RATES_USAGE}`,
  verify: `Usage:\n${VERIFY_USAGE}`,
  ...Object.fromEntries(CLOSE_COMMANDS.map((command) => [command, CLOSE_USAGE])),
};

/** The help of every command: the usage, then the closing commands'. */
export const FULL_HELP = `${USAGE}\n${CLOSE_USAGE}`;

/** The names of the commands, as the help and an unknown command's message list them. */
export const COMMAND_NAMES: readonly string[] = Object.keys(COMMAND_HELP);

/**
 * The help `argv` asks for: `help` alone the full help, `help COMMAND` that command's, and a
 * command with `--help` or `-h` among its arguments (before a `--`) its own; undefined otherwise
 * (`help` of an unknown command included: the parser then names it).
 */
export function helpFor(argv: readonly string[]): string | undefined {
  const end = argv.indexOf('--');
  const [command, ...rest] = end < 0 ? argv : argv.slice(0, end);
  if (command === undefined) return undefined;
  if (command === 'help') return rest.length === 0 ? FULL_HELP : COMMAND_HELP[rest[0] as string];
  if (!rest.some((arg) => arg === '--help' || arg === '-h')) return undefined;
  return COMMAND_HELP[command];
}
