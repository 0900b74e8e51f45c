import { describe, expect, it } from 'vitest';
import { AslDefinitionError, loadStateMachine } from './index.ts';

const ARN = 'arn:aws:lambda:eu-central-1:123456789012:function:Work';
const tasks = { [ARN]: async (input: unknown) => input };
const task = (extra: Record<string, unknown> = {}) => ({ Type: 'Task', Resource: ARN, End: true, ...extra });
const machine = (states: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  StartAt: Object.keys(states)[0],
  States: states,
  ...extra,
});

/** The AslDefinitionError of loading `definition`, or undefined when it loads. */
function refusal(definition: unknown): AslDefinitionError | undefined {
  try {
    loadStateMachine(definition, tasks);
    return undefined;
  } catch (error) {
    if (error instanceof AslDefinitionError) return error;
    throw error;
  }
}

describe('loading a definition', () => {
  it('accepts every state type and field it implements', () => {
    const definition = machine(
      {
        Both: {
          Type: 'Parallel',
          Branches: [
            machine({
              Work: task({ InputPath: '$', Parameters: { 'a.$': '$.a' }, ResultSelector: { 'r.$': '$' } }),
            }),
          ],
          OutputPath: '$[0]',
          Retry: [
            {
              ErrorEquals: ['States.ALL'],
              IntervalSeconds: 1,
              MaxAttempts: 1,
              BackoffRate: 2,
              MaxDelaySeconds: 5,
              JitterStrategy: 'FULL',
            },
          ],
          Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: 'Failed' }],
          Next: 'Each',
        },
        Each: {
          Type: 'Map',
          ItemsPath: '$.items',
          ItemSelector: { 'v.$': '$$.Map.Item.Value' },
          ItemProcessor: {
            ProcessorConfig: { Mode: 'DISTRIBUTED', ExecutionType: 'STANDARD' },
            ...machine({ W: task() }),
          },
          MaxConcurrency: 2,
          ResultPath: null,
          Next: 'Pause',
        },
        Pause: { Type: 'Wait', Seconds: 1, Next: 'Which' },
        Which: {
          Type: 'Choice',
          Choices: [{ Variable: '$.s', StringEquals: 'a', Next: 'Done' }],
          Default: 'Failed',
        },
        Done: { Type: 'Succeed' },
        Failed: { Type: 'Fail', ErrorPath: '$.error.Error', CausePath: '$.error.Cause' },
      },
      { TimeoutSeconds: 60, Comment: 'all of it' },
    );
    expect(refusal(definition)).toBeUndefined();
  });

  it.each([
    [
      'a state type it does not implement',
      machine({ P: { Type: 'Pass', End: true } }),
      'States.P',
      /state type "Pass"/,
    ],
    [
      'a field of a state it does not implement',
      machine({ T: task({ TimeoutSeconds: 5 }) }),
      'States.T',
      /TimeoutSeconds/,
    ],
    ['variables (Assign)', machine({ T: task({ Assign: { x: 1 } }) }), 'States.T', /Assign/],
    ['JSONata', machine({ T: task() }, { QueryLanguage: 'JSONata' }), 'definition', /QueryLanguage/],
    [
      'a nested TimeoutSeconds',
      machine({
        B: { Type: 'Parallel', Branches: [machine({ T: task() }, { TimeoutSeconds: 1 })], End: true },
      }),
      'Branches[0]',
      /TimeoutSeconds/,
    ],
    [
      'a Map item reader',
      machine({ M: { Type: 'Map', ItemReader: {}, ItemProcessor: machine({ T: task() }), End: true } }),
      'States.M',
      /ItemReader/,
    ],
    [
      'a legacy Iterator',
      machine({ M: { Type: 'Map', Iterator: machine({ T: task() }), End: true } }),
      'States.M',
      /Iterator/,
    ],
    [
      'an EXPRESS distributed Map',
      machine({
        M: {
          Type: 'Map',
          ItemProcessor: {
            ProcessorConfig: { Mode: 'DISTRIBUTED', ExecutionType: 'EXPRESS' },
            ...machine({ T: task() }),
          },
          End: true,
        },
      }),
      'ProcessorConfig',
      /EXPRESS/,
    ],
    [
      'an unknown processor setting',
      machine({
        M: {
          Type: 'Map',
          ItemProcessor: { ProcessorConfig: { Mode: 'DISTRIBUTED', Other: 1 }, ...machine({ T: task() }) },
          End: true,
        },
      }),
      'ProcessorConfig',
      /not supported/,
    ],
    [
      'a Choice operator other than StringEquals',
      machine({ C: { Type: 'Choice', Choices: [{ Variable: '$.n', NumericEquals: 1, Next: 'C' }] } }),
      'Choices[0]',
      /NumericEquals/,
    ],
    [
      'a Choice without Variable',
      machine({ C: { Type: 'Choice', Choices: [{ And: [], Next: 'C' }] } }),
      'Choices[0]',
      /And/,
    ],
    [
      'a Wait with a timestamp',
      machine({ W: { Type: 'Wait', TimestampPath: '$.t', End: true } }),
      'States.W',
      /TimestampPath/,
    ],
    [
      'a retrier field it does not implement',
      machine({ T: task({ Retry: [{ ErrorEquals: ['E'], Jitter: 1 }] }) }),
      'Retry[0]',
      /Jitter/,
    ],
    [
      'an unknown jitter strategy',
      machine({ T: task({ Retry: [{ ErrorEquals: ['E'], JitterStrategy: 'HALF' }] }) }),
      'JitterStrategy',
      /FULL or NONE/,
    ],
    [
      'States.ALL with other names',
      machine({ T: task({ Catch: [{ ErrorEquals: ['States.ALL', 'E'], Next: 'T' }] }) }),
      'ErrorEquals',
      /alone/,
    ],
    [
      'a Task resource without a handler',
      machine({ T: { Type: 'Task', Resource: 'arn:other', End: true } }),
      'States.T.Resource',
      /no local handler for arn:other/,
    ],
    [
      'a transition to no state',
      machine({ T: task({ End: undefined, Next: 'Nowhere' }) }),
      'definition',
      /no state named Nowhere/,
    ],
    [
      'a state with both Next and End',
      machine({ T: task({ Next: 'T' }) }),
      'States.T',
      /exactly one of Next and End/,
    ],
    [
      'a state with neither Next nor End',
      machine({ T: task({ End: undefined }) }),
      'States.T',
      /exactly one of Next and End/,
    ],
  ])('refuses %s, naming where', (_name, definition, where, reason) => {
    const error = refusal(definition);
    expect(error?.where).toContain(where);
    expect(error?.message).toMatch(reason);
  });
});
