/**
 * Help and the first mistakes (issue 40, item 4): every command answers `--help` with its own
 * usage, the help lists what the code supports, a forgotten `run` is an error, and the messages
 * of a DATEV journal without settings and of a wrong `--period` speak in the CLI's flags and forms.
 */
import { describe, expect, it } from 'vitest';
import { type CliIo, main } from '../../lib/cli/main.ts';
import { LEDGER_FORMATS } from '../../lib/ledger/index.ts';

function captureIo() {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    stdout: { write: (text: string) => out.push(text) },
    stderr: { write: (text: string) => err.push(text) },
    env: {},
    now: () => new Date('2026-11-22T10:00:00.000Z'),
  };
  return { io, stdout: () => out.join(''), stderr: () => err.join('') };
}

async function cli(argv: readonly string[]) {
  const captured = captureIo();
  const code = await main(argv, captured.io);
  return { code, stdout: captured.stdout(), stderr: captured.stderr() };
}

/** The commands each command's help is about: the closing ones share theirs. */
const CLOSING = ['close', 'reopen', 'check-closes', 'restate'];
const GROUPS: Record<string, readonly string[]> = {
  run: ['run'],
  render: ['render'],
  adjustments: ['adjustments'],
  rates: ['rates'],
  ...Object.fromEntries(CLOSING.map((command) => [command, CLOSING])),
};
const EVERY_COMMAND = Object.keys(GROUPS);

describe('pbs-export COMMAND --help', () => {
  it.each(EVERY_COMMAND)('prints the usage of %s and no other command, exit 0', async (command) => {
    const result = await cli([command, '--help']);

    const named = EVERY_COMMAND.filter((other) => result.stdout.includes(`pbs-export ${other} `));
    expect({ code: result.code, stderr: result.stderr, named }).toEqual({
      code: 0,
      stderr: '',
      named: GROUPS[command],
    });
  });

  it('answers -h and "help COMMAND" alike, whatever other flags are given', async () => {
    const short = await cli(['close', '--profile', 'acme', '-h']);
    const topic = await cli(['help', 'close']);
    const long = await cli(['close', '--help']);

    expect({ codes: [short.code, topic.code], same: [short.stdout, topic.stdout] }).toEqual({
      codes: [0, 0],
      same: [long.stdout, long.stdout],
    });
  });
});

describe('pbs-export --help', () => {
  it('lists every journal format the code registers under --journal-format', async () => {
    const result = await cli(['--help']);
    const entry = /\n {2}--journal-format F[\s\S]*?(?=\n {2}--)/.exec(result.stdout)?.[0] ?? '';

    expect(LEDGER_FORMATS.map((format) => format.id).filter((id) => !entry.includes(id))).toEqual([]);
  });
});

describe('the first mistakes, in the words of the command line', () => {
  it('prints the usage and exits 2 when the command is forgotten (flags without run)', async () => {
    const result = await cli(['--profile', 'demo', '--period', '2025']);

    expect({
      code: result.code,
      stdout: result.stdout,
      last: result.stderr.trimEnd().split('\n').at(-1),
    }).toEqual({
      code: 2,
      stdout: '',
      last: 'error: no command given: put one first, e.g. pbs-export run --period 2025-10',
    });
    expect(result.stderr).toMatch(/^Usage:\n {2}pbs-export run /);
  });

  it('names --journal-settings and what it must hold for a DATEV journal without settings, exit 2', async () => {
    const result = await cli([
      'run',
      '--simulator',
      '--period',
      '2024-06',
      '--report',
      'journal',
      '--journal-format',
      'datev',
    ]);

    expect({ code: result.code, first: result.stderr.split('; ')[0] }).toEqual({
      code: 2,
      first:
        'error: --journal-settings: datev.consultantNumber: is required (give --journal-settings FILE, a JSON file such as {"datev": {"consultantNumber": …}})',
    });
  });

  it.each([
    [
      '2024-1',
      'error: --period "2024-1": expected a month (2025-10), a year (2025) or a range of days (2025-01-05..2025-02-10)\n',
    ],
    [
      '2024-02-01..2024-01-01',
      'error: --period "2024-02-01..2024-01-01": the range\'s last day is before its first (FIRST..LAST)\n',
    ],
  ])(
    "says a wrong --period %s in the forms the CLI takes, not the API's {from, to}, exit 2",
    async (period, message) => {
      const result = await cli(['run', '--simulator', '--period', period]);

      expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 2, stderr: message });
    },
  );
});
