import { describe, expect, it } from 'vitest';
import { ValidationError } from '../errors.ts';
import { assertListPrefix, assertObjectName } from './names.ts';

describe('assertObjectName', () => {
  it('accepts a relative path', () => {
    expect(() => assertObjectName('reports/demo/2025/run/transactions.csv')).not.toThrow();
  });

  it.each([
    ['', 'is empty'],
    ['../outside.csv', "'..' segment"],
    ['a/../../outside.csv', "'..' segment"],
    ['a/..', "'..' segment"],
    ['/etc/passwd', 'absolute path'],
    ['a\\b.csv', 'backslash'],
    ['a\0b.csv', 'NUL'],
    ['C:/x.csv', 'drive letter'],
    ['a//b.csv', 'empty segment'],
    ['a/./b.csv', "'.' segment"],
    ['a/', 'empty segment'],
    ['.x.csv.partial-0a1b', 'temporary file'],
  ])('refuses %j, naming the name and why', (name, reason) => {
    let caught: unknown;
    try {
      assertObjectName(name);
    } catch (error) {
      caught = error;
    }

    expect(caught).toBeInstanceOf(ValidationError);
    expect((caught as ValidationError).field).toBe('name');
    expect((caught as ValidationError).message).toContain(JSON.stringify(name));
    expect((caught as ValidationError).message).toContain(reason);
  });
});

describe('assertListPrefix', () => {
  it.each(['', 'reports/', 'reports/demo/20'])('accepts %j', (prefix) => {
    expect(() => assertListPrefix(prefix)).not.toThrow();
  });

  it.each(['../', 'a/../b/', '/abs/', 'a\\'])('refuses %j', (prefix) => {
    expect(() => assertListPrefix(prefix)).toThrow(ValidationError);
  });
});
