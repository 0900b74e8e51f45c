/**
 * Loading a definition: every state and field checked against what `run.ts` implements, and
 * compiled. Anything else is refused here (AslDefinitionError), never skipped. The subset is the
 * one the project's two synthesized machines use (`infra/state-machines.ts`): Task, Parallel,
 * Map (inline, or distributed run inline over its ItemsPath), Choice with StringEquals, Wait with
 * Seconds, Succeed, Fail; InputPath, Parameters, ItemSelector, ResultSelector, ResultPath,
 * OutputPath, Retry, Catch. Field lists after the AWS States Language reference:
 * https://docs.aws.amazon.com/step-functions/latest/dg/concepts-amazon-states-language.html
 * https://states-language.net/spec.html
 */
import { AslDefinitionError } from './errors.ts';
import {
  compileTemplate,
  parsePath,
  parseResultPath,
  type ReferencePath,
  type ResultPath,
  type Template,
} from './paths.ts';

/** A retrier as loaded, with the defaults of the language filled in. */
export interface Retrier {
  errorEquals: readonly string[];
  intervalSeconds: number;
  maxAttempts: number;
  backoffRate: number;
  maxDelaySeconds?: number;
  jitter: boolean;
}

/** A catcher as loaded. */
export interface Catcher {
  errorEquals: readonly string[];
  resultPath: ResultPath;
  next: string;
}

interface Common {
  name: string;
  /** `undefined`: `$` (all of it); `null`: `{}`. */
  inputPath?: ReferencePath | null;
  outputPath?: ReferencePath | null;
  /** The next state, `undefined` for a state that ends its machine. */
  next?: string;
}

interface Work extends Common {
  parameters?: Template;
  resultSelector?: Template;
  resultPath: ResultPath;
  retry: readonly Retrier[];
  catch: readonly Catcher[];
}

export type State =
  | (Work & { type: 'Task'; resource: string })
  | (Work & { type: 'Parallel'; branches: readonly Machine[] })
  | (Work & {
      type: 'Map';
      itemsPath: ReferencePath;
      itemSelector?: Template;
      processor: Machine;
      maxConcurrency: number;
    })
  | (Common & { type: 'Choice'; choices: readonly Rule[]; default?: string })
  | (Common & { type: 'Wait'; seconds: number })
  | (Common & { type: 'Succeed' })
  | {
      type: 'Fail';
      name: string;
      error?: string | ReferencePath;
      cause?: string | ReferencePath;
    };

/** A Choice rule: `Variable` equal to the string `StringEquals`. */
export interface Rule {
  variable: ReferencePath;
  stringEquals: string;
  next: string;
}

/** A loaded (sub-)machine. */
export interface Machine {
  startAt: string;
  states: ReadonlyMap<string, State>;
  timeoutSeconds?: number;
}

type Raw = Record<string, unknown>;

const IO = ['Type', 'Comment', 'InputPath', 'OutputPath'];
const FLOW = ['Next', 'End'];
const WORK = [...IO, ...FLOW, 'Parameters', 'ResultSelector', 'ResultPath', 'Retry', 'Catch'];
const FIELDS: Record<string, readonly string[]> = {
  Task: [...WORK, 'Resource'],
  Parallel: [...WORK, 'Branches'],
  Map: [
    ...WORK.filter((field) => field !== 'Parameters'),
    'ItemsPath',
    'ItemSelector',
    'ItemProcessor',
    'MaxConcurrency',
  ],
  Choice: [...IO, 'Choices', 'Default'],
  Wait: [...IO, ...FLOW, 'Seconds'],
  Succeed: IO,
  Fail: ['Type', 'Comment', 'Error', 'Cause', 'ErrorPath', 'CausePath'],
};

function object(value: unknown, where: string): Raw {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new AslDefinitionError(where, 'expected an object');
  }
  return value as Raw;
}

function only(raw: Raw, allowed: readonly string[], where: string): void {
  for (const key of Object.keys(raw)) {
    if (!allowed.includes(key))
      throw new AslDefinitionError(where, `field ${key} is not supported by the local interpreter`);
  }
}

function integer(value: unknown, where: string, min: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    throw new AslDefinitionError(
      where,
      `expected an integer of at least ${min}, got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

function text(value: unknown, where: string): string {
  if (typeof value !== 'string' || value === '')
    throw new AslDefinitionError(where, 'expected a non-empty string');
  return value;
}

function errorNames(value: unknown, where: string): string[] {
  if (!Array.isArray(value) || value.length === 0)
    throw new AslDefinitionError(where, 'expected a non-empty list of error names');
  const names = value.map((name, index) => text(name, `${where}[${index}]`));
  if (names.includes('States.ALL') && names.length > 1)
    throw new AslDefinitionError(where, 'States.ALL must appear alone');
  return names;
}

const optionalPath = (raw: Raw, field: string, where: string) =>
  raw[field] === null
    ? null
    : raw[field] === undefined
      ? undefined
      : parsePath(raw[field], `${where}.${field}`);

function retriers(value: unknown, where: string): Retrier[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new AslDefinitionError(where, 'expected a list of retriers');
  return value.map((item, index) => {
    const at = `${where}[${index}]`;
    const raw = object(item, at);
    only(
      raw,
      ['ErrorEquals', 'IntervalSeconds', 'MaxAttempts', 'BackoffRate', 'MaxDelaySeconds', 'JitterStrategy'],
      at,
    );
    const backoffRate = raw.BackoffRate ?? 2;
    if (typeof backoffRate !== 'number' || backoffRate < 1)
      throw new AslDefinitionError(`${at}.BackoffRate`, 'expected a number of at least 1');
    if (![undefined, 'FULL', 'NONE'].includes(raw.JitterStrategy as string)) {
      throw new AslDefinitionError(`${at}.JitterStrategy`, 'expected FULL or NONE');
    }
    return {
      errorEquals: errorNames(raw.ErrorEquals, `${at}.ErrorEquals`),
      intervalSeconds: integer(raw.IntervalSeconds ?? 1, `${at}.IntervalSeconds`, 1),
      maxAttempts: integer(raw.MaxAttempts ?? 3, `${at}.MaxAttempts`, 0),
      backoffRate,
      ...(raw.MaxDelaySeconds === undefined
        ? {}
        : { maxDelaySeconds: integer(raw.MaxDelaySeconds, `${at}.MaxDelaySeconds`, 1) }),
      jitter: raw.JitterStrategy === 'FULL',
    };
  });
}

function catchers(value: unknown, where: string): Catcher[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new AslDefinitionError(where, 'expected a list of catchers');
  return value.map((item, index) => {
    const at = `${where}[${index}]`;
    const raw = object(item, at);
    only(raw, ['ErrorEquals', 'ResultPath', 'Next'], at);
    return {
      errorEquals: errorNames(raw.ErrorEquals, `${at}.ErrorEquals`),
      resultPath: parseResultPath(raw.ResultPath, `${at}.ResultPath`),
      next: text(raw.Next, `${at}.Next`),
    };
  });
}

/** Next or End, exactly one of them. */
function flow(raw: Raw, where: string): { next?: string } {
  if ((raw.Next === undefined) === (raw.End !== true))
    throw new AslDefinitionError(where, 'needs exactly one of Next and End: true');
  return raw.Next === undefined ? {} : { next: text(raw.Next, `${where}.Next`) };
}

function common(name: string, raw: Raw, where: string): Common {
  const inputPath = optionalPath(raw, 'InputPath', where);
  const outputPath = optionalPath(raw, 'OutputPath', where);
  return {
    name,
    ...(inputPath === undefined ? {} : { inputPath }),
    ...(outputPath === undefined ? {} : { outputPath }),
  };
}

function work(name: string, raw: Raw, where: string): Work {
  return {
    ...common(name, raw, where),
    ...flow(raw, where),
    ...(raw.Parameters === undefined
      ? {}
      : {
          parameters: compileTemplate(object(raw.Parameters, `${where}.Parameters`), `${where}.Parameters`),
        }),
    ...(raw.ResultSelector === undefined
      ? {}
      : {
          resultSelector: compileTemplate(
            object(raw.ResultSelector, `${where}.ResultSelector`),
            `${where}.ResultSelector`,
          ),
        }),
    resultPath: parseResultPath(raw.ResultPath, `${where}.ResultPath`),
    retry: retriers(raw.Retry, `${where}.Retry`),
    catch: catchers(raw.Catch, `${where}.Catch`),
  };
}

/** The item processor of a Map: inline, or distributed (STANDARD) and run inline here. */
function processor(value: unknown, where: string, resources: ReadonlySet<string>): Machine {
  const raw = object(value, where);
  const config = object(raw.ProcessorConfig ?? { Mode: 'INLINE' }, `${where}.ProcessorConfig`);
  const inline = config.Mode === 'INLINE' && Object.keys(config).length === 1;
  const distributed =
    config.Mode === 'DISTRIBUTED' &&
    [undefined, 'STANDARD'].includes(config.ExecutionType as string) &&
    Object.keys(config).every((key) => key === 'Mode' || key === 'ExecutionType');
  if (!inline && !distributed) {
    throw new AslDefinitionError(
      `${where}.ProcessorConfig`,
      `${JSON.stringify(config)} is not supported (INLINE, or DISTRIBUTED STANDARD)`,
    );
  }
  const { ProcessorConfig: _config, ...machine } = raw;
  return loadMachine(machine, where, resources, false);
}

function choice(name: string, raw: Raw, where: string): State {
  if (!Array.isArray(raw.Choices) || raw.Choices.length === 0)
    throw new AslDefinitionError(`${where}.Choices`, 'expected a non-empty list');
  const choices = raw.Choices.map((item, index) => {
    const at = `${where}.Choices[${index}]`;
    const rule = object(item, at);
    only(rule, ['Variable', 'StringEquals', 'Next'], at);
    if (typeof rule.StringEquals !== 'string')
      throw new AslDefinitionError(at, 'only Variable with StringEquals is supported');
    return {
      variable: parsePath(rule.Variable, `${at}.Variable`),
      stringEquals: rule.StringEquals,
      next: text(rule.Next, `${at}.Next`),
    };
  });
  return {
    type: 'Choice',
    ...common(name, raw, where),
    choices,
    ...(raw.Default === undefined ? {} : { default: text(raw.Default, `${where}.Default`) }),
  };
}

/** `Error`/`ErrorPath` (or `Cause`/`CausePath`) of a Fail state. */
function failField(
  raw: Raw,
  field: 'Error' | 'Cause',
  where: string,
): { [key: string]: string | ReferencePath } {
  const key = field.toLowerCase();
  if (raw[field] !== undefined && raw[`${field}Path`] !== undefined)
    throw new AslDefinitionError(where, `${field} and ${field}Path are exclusive`);
  if (raw[field] !== undefined) return { [key]: text(raw[field], `${where}.${field}`) };
  if (raw[`${field}Path`] !== undefined)
    return { [key]: parsePath(raw[`${field}Path`], `${where}.${field}Path`) };
  return {};
}

function loadState(name: string, value: unknown, where: string, resources: ReadonlySet<string>): State {
  const raw = object(value, where);
  const type = raw.Type as string;
  const allowed = FIELDS[type];
  if (allowed === undefined)
    throw new AslDefinitionError(
      where,
      `state type ${JSON.stringify(type)} is not supported by the local interpreter`,
    );
  only(raw, allowed, where);
  switch (type) {
    case 'Task': {
      const resource = text(raw.Resource, `${where}.Resource`);
      if (!resources.has(resource))
        throw new AslDefinitionError(`${where}.Resource`, `no local handler for ${resource}`);
      return { type, ...work(name, raw, where), resource };
    }
    case 'Parallel': {
      if (!Array.isArray(raw.Branches) || raw.Branches.length === 0)
        throw new AslDefinitionError(`${where}.Branches`, 'expected a non-empty list');
      const branches = raw.Branches.map((branch, index) =>
        loadMachine(branch, `${where}.Branches[${index}]`, resources, false),
      );
      return { type, ...work(name, raw, where), branches };
    }
    case 'Map':
      return {
        type,
        ...work(name, raw, where),
        itemsPath: parsePath(raw.ItemsPath ?? '$', `${where}.ItemsPath`),
        ...(raw.ItemSelector === undefined
          ? {}
          : {
              itemSelector: compileTemplate(
                object(raw.ItemSelector, `${where}.ItemSelector`),
                `${where}.ItemSelector`,
              ),
            }),
        processor: processor(raw.ItemProcessor, `${where}.ItemProcessor`, resources),
        maxConcurrency: integer(raw.MaxConcurrency ?? 0, `${where}.MaxConcurrency`, 0),
      };
    case 'Choice':
      return choice(name, raw, where);
    case 'Wait':
      return {
        type,
        ...common(name, raw, where),
        ...flow(raw, where),
        seconds: integer(raw.Seconds, `${where}.Seconds`, 0),
      };
    case 'Succeed':
      return { type, ...common(name, raw, where) };
    default:
      return { type: 'Fail', name, ...failField(raw, 'Error', where), ...failField(raw, 'Cause', where) };
  }
}

/** Every transition of a machine names one of its own states. */
function checkTargets(machine: Machine, where: string): void {
  const targets = (state: State): (string | undefined)[] => {
    if (state.type === 'Fail') return [];
    const own = [state.next];
    if (state.type === 'Choice') return [...own, state.default, ...state.choices.map((rule) => rule.next)];
    if ('catch' in state) return [...own, ...state.catch.map((catcher) => catcher.next)];
    return own;
  };
  for (const target of [machine.startAt, ...[...machine.states.values()].flatMap(targets)]) {
    if (target !== undefined && !machine.states.has(target))
      throw new AslDefinitionError(where, `no state named ${target}`);
  }
}

/**
 * Loads a machine (`top`: the definition itself, which alone may have TimeoutSeconds), its Task
 * resources checked against `resources`.
 */
export function loadMachine(
  value: unknown,
  where: string,
  resources: ReadonlySet<string>,
  top: boolean,
): Machine {
  const raw = object(value, where);
  only(
    raw,
    top ? ['StartAt', 'States', 'Comment', 'TimeoutSeconds'] : ['StartAt', 'States', 'Comment'],
    where,
  );
  const states = new Map(
    Object.entries(object(raw.States, `${where}.States`)).map(([name, state]) => [
      name,
      loadState(name, state, `${where}.States.${name}`, resources),
    ]),
  );
  const machine: Machine = {
    startAt: text(raw.StartAt, `${where}.StartAt`),
    states,
    ...(raw.TimeoutSeconds === undefined
      ? {}
      : { timeoutSeconds: integer(raw.TimeoutSeconds, `${where}.TimeoutSeconds`, 1) }),
  };
  checkTargets(machine, where);
  return machine;
}
