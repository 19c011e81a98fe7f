// Unit tests for the password rules (core/password-policy.ts): length in code points, GoTrue's errors.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import {
  assertPasswordAcceptable,
  codePointLength,
  passwordPolicyOf,
  passwordProblems,
} from '../../src/core/password-policy.ts';
import type { AuthError } from '../../src/errors.ts';

describe('password rules', () => {
  const policy = { minLength: 6, maxLength: 100 };
  it('counts code points, not UTF-16 units or bytes', () => {
    expect(codePointLength('😀😀😀')).toBe(3);
    expect(codePointLength('نماء')).toBe(4);
    expect(passwordProblems('😀😀😀😀😀', policy).reasons).toEqual(['length']);
    expect(passwordProblems('😀😀😀😀😀😀', policy).reasons).toEqual([]);
  });
  it('accepts 6 and 100, refuses 5 (weak_password) and 101 (never truncated)', () => {
    expect(() => assertPasswordAcceptable('a'.repeat(6), policy)).not.toThrow();
    expect(() => assertPasswordAcceptable('a'.repeat(100), policy)).not.toThrow();
    const weak = (() => {
      try {
        assertPasswordAcceptable('a'.repeat(5), policy);
      } catch (e) {
        return e as AuthError;
      }
    })();
    expect(weak?.code).toBe('weak_password');
    expect(weak?.extra).toEqual({ weak_password: { reasons: ['length'] } });
    expect(() => assertPasswordAcceptable('a'.repeat(101), policy)).toThrow(/longer than 100/);
  });
  it('takes its limits and the common-password switch from the settings', () => {
    const policy = passwordPolicyOf(loadConfig({ PASSWORD_MIN_LENGTH: '10' }));
    expect(passwordProblems('abcdefghi', policy).reasons).toEqual(['length']);
    // The maximum is GoTrue's fixed 100, not a setting.
    expect(() => assertPasswordAcceptable('a'.repeat(101), policy)).toThrow(/longer than 100/);
    expect(passwordProblems('password123', policy).reasons).toEqual(['pwned']);
    const lenient = passwordPolicyOf(loadConfig({ PASSWORD_REJECT_COMMON: 'false' }));
    expect(passwordProblems('password123', lenient).reasons).toEqual([]);
  });
});
