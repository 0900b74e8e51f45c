import { describe, expect, it } from 'vitest';
import { captureOutput } from '../../test/support/workflow.ts';
import { ProfileBusyError } from '../jobs/index.ts';
import { createObservability, runInvocation } from './observability.ts';

describe('a plan task waiting for the slot', () => {
  it('logs an info line, not an error, and still throws ProfileBusyError for the retrier', async () => {
    const obs = createObservability('pbs-export-test');
    const output = captureOutput();
    let thrown: unknown;
    try {
      await runInvocation(obs, {}, undefined, async () => {
        throw new ProfileBusyError('acme');
      }).catch((error: unknown) => {
        thrown = error;
      });
    } finally {
      output.stop();
    }

    expect((thrown as Error).name).toBe('ProfileBusyError');
    expect(output.lines().map((line) => line.level)).toEqual(['INFO']);
  });
});
