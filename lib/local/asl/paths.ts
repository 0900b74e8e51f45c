/**
 * Reference paths, payload templates and the one intrinsic function the project's machines use,
 * after the AWS documentation:
 * - https://docs.aws.amazon.com/step-functions/latest/dg/amazon-states-language-paths.html
 *   (reference paths: `$`, `$.a.b`, `$[0]`, `$$` for the context object)
 * - https://docs.aws.amazon.com/step-functions/latest/dg/input-output-inputpath-params.html
 *   (`Parameters`/`ItemSelector`/`ResultSelector`: fields named `….$` take a path or an
 *   intrinsic, the others are literal, however deeply nested)
 * - https://docs.aws.amazon.com/step-functions/latest/dg/input-output-resultpath.html
 *   (`ResultPath`: `$` replaces, `null` discards, `$.a.b` sets the field in the state's input)
 * - https://docs.aws.amazon.com/step-functions/latest/dg/intrinsic-functions.html (`States.Format`)
 * Paths are checked when the machine is loaded; a path that selects nothing at run time is a
 * `States.Runtime` error, as on AWS.
 */
import { AslDefinitionError, StatesError } from './errors.ts';

/** A parsed reference path: from the input (`$`) or the context object (`$$`), then steps. */
export interface ReferencePath {
  readonly text: string;
  readonly context: boolean;
  readonly steps: readonly (string | number)[];
}

/** What a path or template is evaluated against. */
export interface Scope {
  input: unknown;
  context: unknown;
}

const STEP = /^(?:\.([A-Za-z_][A-Za-z0-9_-]*)|\[(\d+)\])/;

/** Parses a reference path (only `.name` and `[index]` steps: no wildcards, slices or filters). */
export function parsePath(text: unknown, where: string): ReferencePath {
  if (typeof text !== 'string' || !text.startsWith('$')) {
    throw new AslDefinitionError(where, `expected a path starting with "$", got ${JSON.stringify(text)}`);
  }
  const context = text.startsWith('$$');
  let rest = text.slice(context ? 2 : 1);
  const steps: (string | number)[] = [];
  while (rest !== '') {
    const match = STEP.exec(rest);
    if (match === null)
      throw new AslDefinitionError(where, `path ${text} is not supported here (at "${rest}")`);
    steps.push(match[1] ?? Number(match[2]));
    rest = rest.slice(match[0].length);
  }
  return { text, context, steps };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The value a path selects; `States.Runtime` when it selects nothing. */
export function readPath(path: ReferencePath, scope: Scope): unknown {
  let value = path.context ? scope.context : scope.input;
  for (const step of path.steps) {
    const found =
      typeof step === 'number'
        ? Array.isArray(value) && step < value.length
        : isObject(value) && Object.hasOwn(value, step);
    if (!found) throw new StatesError('States.Runtime', `the path ${path.text} selects nothing in the input`);
    value = (value as Record<string | number, unknown>)[step];
  }
  return value;
}

/** A `ResultPath`: `null` (keep the input), or `$` and `.name` steps below it. */
export type ResultPath = null | readonly string[];

/** Parses a `ResultPath` field (absent: `$`). */
export function parseResultPath(value: unknown, where: string): ResultPath {
  if (value === null) return null;
  const path = parsePath(value ?? '$', where);
  if (path.context || path.steps.some((step) => typeof step !== 'string')) {
    throw new AslDefinitionError(where, `ResultPath ${path.text} is not supported (only $ and .name steps)`);
  }
  return path.steps as string[];
}

/**
 * The state's input with `result` placed at `path` (a copy: the input is not changed). A field
 * on the way that holds something else than an object is `States.ResultPathMatchFailure`.
 */
export function applyResultPath(path: ResultPath, input: unknown, result: unknown): unknown {
  if (path === null) return input;
  if (path.length === 0) return result;
  const place = (target: unknown, [head, ...tail]: readonly string[]): Record<string, unknown> => {
    if (!isObject(target)) {
      throw new StatesError(
        'States.ResultPathMatchFailure',
        `ResultPath $.${path.join('.')} meets a non-object`,
      );
    }
    const next = tail.length === 0 ? result : place(target[head as string] ?? {}, tail);
    return { ...target, [head as string]: next };
  };
  return place(input, path);
}

/** A compiled payload template: its value for a scope. */
export type Template = (scope: Scope) => unknown;

/** Compiles a payload template (`Parameters`, `ItemSelector`, `ResultSelector`). */
export function compileTemplate(template: unknown, where: string): Template {
  if (Array.isArray(template)) {
    const items = template.map((item, index) => compileTemplate(item, `${where}[${index}]`));
    return (scope) => items.map((item) => item(scope));
  }
  if (!isObject(template)) return () => template;
  const fields = Object.entries(template).map(([key, value]): [string, Template] => {
    if (!key.endsWith('.$')) return [key, compileTemplate(value, `${where}.${key}`)];
    return [key.slice(0, -2), compileExpression(value, `${where}.${key}`)];
  });
  return (scope) => Object.fromEntries(fields.map(([key, field]) => [key, field(scope)]));
}

/** The value of a `….$` field: a reference path or an intrinsic function. */
function compileExpression(value: unknown, where: string): Template {
  if (typeof value === 'string' && value.startsWith('States.')) return compileIntrinsic(value, where);
  const path = parsePath(value, where);
  return (scope) => readPath(path, scope);
}

type Argument = { literal: string } | { path: ReferencePath };

/** Splits the arguments of an intrinsic call: single-quoted strings (with `\` escapes) and paths. */
function parseArguments(text: string, where: string): Argument[] {
  const args: Argument[] = [];
  let rest = text.trim();
  while (rest !== '') {
    if (rest.startsWith("'")) {
      let literal = '';
      let index = 1;
      for (; index < rest.length && rest[index] !== "'"; index += 1) {
        // Keeps the backslash before { and } so that an escaped brace is no placeholder.
        if (rest[index] === '\\' && (rest[index + 1] === '{' || rest[index + 1] === '}')) literal += '\\';
        if (rest[index] === '\\') index += 1;
        literal += rest[index] ?? '';
      }
      if (index >= rest.length) throw new AslDefinitionError(where, 'unterminated string in an intrinsic');
      args.push({ literal });
      rest = rest.slice(index + 1).trim();
    } else {
      const end = rest.indexOf(',');
      args.push({ path: parsePath((end < 0 ? rest : rest.slice(0, end)).trim(), where) });
      rest = end < 0 ? '' : rest.slice(end);
    }
    if (rest.startsWith(',')) rest = rest.slice(1).trim();
    else if (rest !== '') throw new AslDefinitionError(where, `unexpected "${rest}" in an intrinsic`);
  }
  return args;
}

/** Compiles `States.Format('…{}…', arg, …)`, the only intrinsic implemented; others are refused. */
function compileIntrinsic(text: string, where: string): Template {
  const call = /^States\.Format\((.*)\)$/s.exec(text);
  if (call === null)
    throw new AslDefinitionError(where, `intrinsic ${text} is not supported (only States.Format)`);
  const [template, ...args] = parseArguments(call[1] as string, where);
  if (template === undefined || !('literal' in template)) {
    throw new AslDefinitionError(where, 'States.Format needs a string template first');
  }
  const parts = template.literal.split(/(?<!\\)\{\}/).map((part) => part.replace(/\\([{}])/g, '$1'));
  if (parts.length - 1 !== args.length) {
    throw new AslDefinitionError(
      where,
      `States.Format has ${parts.length - 1} placeholders and ${args.length} values`,
    );
  }
  return (scope) =>
    parts.reduce((text, part, index) => {
      if (index === 0) return part;
      const arg = args[index - 1] as Argument;
      const value = 'literal' in arg ? arg.literal : readPath(arg.path, scope);
      if (typeof value === 'object' && value !== null) {
        throw new StatesError(
          'States.IntrinsicFailure',
          `States.Format cannot format ${JSON.stringify(value)}`,
        );
      }
      return `${text}${typeof value === 'string' ? value : JSON.stringify(value)}${part}`;
    }, '');
}
