// Unit tests for the JSON nesting limit read from the raw body text (core/http/json-depth.ts).
import { describe, expect, it } from 'vitest';
import { jsonTextProblem } from '../../../src/core/http/json-depth.ts';

const jsonNestsDeeperThan = (text: string, limit: number) => jsonTextProblem(text, limit) === 'too_deep';

describe('JSON nesting limit', () => {
  it('counts objects and arrays, not brackets inside strings or escaped quotes', () => {
    expect(jsonNestsDeeperThan('{"a":[{"b":1}]}', 3)).toBe(false);
    expect(jsonNestsDeeperThan('{"a":[{"b":[1]}]}', 3)).toBe(true);
    expect(jsonNestsDeeperThan('{"a":"[[[[{{{{"}', 1)).toBe(false);
    // An escaped quote does not end the string: the brackets after it are still text.
    expect(jsonNestsDeeperThan(String.raw`{"a":"\"[[[","b":1}`, 1)).toBe(false);
    // An escaped backslash does not escape the closing quote: counting resumes after it.
    expect(jsonNestsDeeperThan(String.raw`{"a":"\\","b":[[1]]}`, 2)).toBe(true);
    expect(jsonNestsDeeperThan(String.raw`{"a":"\\","b":[1]}`, 2)).toBe(false);
    expect(jsonNestsDeeperThan('[[],[],[]]', 2)).toBe(false); // siblings do not add up
    expect(jsonNestsDeeperThan(`${'['.repeat(100_000)}`, 64)).toBe(true); // no recursion, no overflow
  });
});
