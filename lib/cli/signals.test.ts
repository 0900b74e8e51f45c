import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { StopSignalReceived } from './errors.ts';
import { stopExitCode, stopOnSignals } from './signals.ts';

describe('stopOnSignals', () => {
  it('aborts its signal on the first SIGINT with the signal named, and exits 130 at once on a second', () => {
    const source = new EventEmitter();
    const exits: number[] = [];
    const stop = stopOnSignals(source, (code) => exits.push(code));

    source.emit('SIGINT');
    const first = { aborted: stop.signal.aborted, reason: stop.signal.reason, exits: [...exits] };
    source.emit('SIGINT');

    expect(first).toEqual({ aborted: true, reason: new StopSignalReceived('SIGINT'), exits: [] });
    expect(exits).toEqual([130]);
  });

  it('exits 143 on a SIGTERM after the run was stopped', () => {
    const source = new EventEmitter();
    const exits: number[] = [];
    stopOnSignals(source, (code) => exits.push(code));

    source.emit('SIGINT');
    source.emit('SIGTERM');

    expect(exits).toEqual([143]);
  });

  it('stops listening once disposed', () => {
    const source = new EventEmitter();
    const stop = stopOnSignals(source, () => {});

    stop.dispose();

    expect([source.listenerCount('SIGINT'), source.listenerCount('SIGTERM')]).toEqual([0, 0]);
  });
});

describe('stopExitCode', () => {
  it('is 130 for SIGINT, 143 for SIGTERM, and undefined for a signal that has not fired', () => {
    const stopped = (signal: 'SIGINT' | 'SIGTERM') => {
      const controller = new AbortController();
      controller.abort(new StopSignalReceived(signal));
      return stopExitCode(controller.signal);
    };

    expect([stopped('SIGINT'), stopped('SIGTERM'), stopExitCode(new AbortController().signal)]).toEqual([
      130,
      143,
      undefined,
    ]);
  });
});
