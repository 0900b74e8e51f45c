import { describe, expect, it } from 'vitest';
import { AslDefinitionError, type StatesError } from './errors.ts';
import { applyResultPath, compileTemplate, parsePath, parseResultPath, readPath } from './paths.ts';

const scope = {
  input: { a: { b: [10, { c: 'x' }] }, n: 3, nul: null },
  context: { Map: { Item: { Index: 1, Value: { profile: 'acme' } } } },
};
const read = (text: string) => readPath(parsePath(text, 'test'), scope);
const runtimeError = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return (error as StatesError).error;
  }
  return 'no error';
};

describe('reference paths', () => {
  it('select fields, indexes and the context object', () => {
    expect(read('$')).toBe(scope.input);
    expect(read('$.a.b[1].c')).toBe('x');
    expect(read('$.nul')).toBeNull();
    expect(read('$$.Map.Item.Value.profile')).toBe('acme');
  });

  it('fail with States.Runtime where they select nothing', () => {
    expect(runtimeError(() => read('$.a.missing'))).toBe('States.Runtime');
    expect(runtimeError(() => read('$.a.b[2]'))).toBe('States.Runtime');
    expect(runtimeError(() => read('$.n.c'))).toBe('States.Runtime');
  });

  it('are refused at load when they use what is not implemented (wildcards, filters, slices)', () => {
    for (const text of ['$.a[*]', '$..c', '$.a.b[0:1]', 'a.b', "$['a']"]) {
      expect(() => parsePath(text, 'States.X.InputPath'), text).toThrow(AslDefinitionError);
    }
  });
});

describe('ResultPath', () => {
  const input = { keep: 1, deep: { keep: 2 } };

  it('$ replaces the input with the result, null keeps the input', () => {
    expect(applyResultPath(parseResultPath('$', 'test'), input, { r: 1 })).toEqual({ r: 1 });
    expect(applyResultPath(parseResultPath(undefined, 'test'), input, 'r')).toBe('r');
    expect(applyResultPath(parseResultPath(null, 'test'), input, { r: 1 })).toBe(input);
  });

  it('a field path merges the result into a copy of the input, creating the fields on the way', () => {
    expect(applyResultPath(parseResultPath('$.deep.result', 'test'), input, 'r')).toEqual({
      keep: 1,
      deep: { keep: 2, result: 'r' },
    });
    expect(applyResultPath(parseResultPath('$.new.result', 'test'), input, 'r')).toEqual({
      ...input,
      new: { result: 'r' },
    });
    expect(input).toEqual({ keep: 1, deep: { keep: 2 } });
  });

  it('meeting a non-object is States.ResultPathMatchFailure', () => {
    expect(runtimeError(() => applyResultPath(parseResultPath('$.keep.x', 'test'), input, 'r'))).toBe(
      'States.ResultPathMatchFailure',
    );
  });

  it('is refused at load with an index or the context object', () => {
    expect(() => parseResultPath('$.a[0]', 'test')).toThrow(AslDefinitionError);
    expect(() => parseResultPath('$$.a', 'test')).toThrow(AslDefinitionError);
  });
});

describe('payload templates', () => {
  it('replace fields named ….$ by the value of their path, however nested, and keep the others', () => {
    const template = compileTemplate(
      {
        literal: '$.n',
        'copy.$': '$.n',
        nested: { 'item.$': '$$.Map.Item.Index', list: [{ 'c.$': '$.a.b[1].c' }] },
      },
      'test',
    );
    expect(template(scope)).toEqual({ literal: '$.n', copy: 3, nested: { item: 1, list: [{ c: 'x' }] } });
  });

  it('format strings with States.Format, escapes kept literal', () => {
    const template = compileTemplate(
      {
        'arn.$': "States.Format('arn:{}:{}:\\{\\}:it\\'s', $.a.b[1].c, $.n)",
        'n.$': "States.Format('{}', $.nul)",
      },
      'test',
    );
    expect(template(scope)).toEqual({ arn: "arn:x:3:{}:it's", n: 'null' });
  });

  it('States.Format of an object is States.IntrinsicFailure', () => {
    const template = compileTemplate({ 'v.$': "States.Format('{}', $.a)" }, 'test');
    expect(runtimeError(() => template(scope))).toBe('States.IntrinsicFailure');
  });

  it('refuse at load other intrinsics and a wrong number of values', () => {
    expect(() => compileTemplate({ 'v.$': 'States.StringToJson($.a)' }, 'P')).toThrow(/only States.Format/);
    expect(() => compileTemplate({ 'v.$': "States.Format('{} {}', $.a)" }, 'P')).toThrow(
      /2 placeholders and 1 values/,
    );
    expect(() => compileTemplate({ 'v.$': 'not a path' }, 'P')).toThrow(AslDefinitionError);
  });
});
