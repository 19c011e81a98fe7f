// Unit tests for email normalisation and validation (core/email.ts).
import { describe, expect, it } from 'vitest';
import { isValidEmail, normalizeEmail, parseEmail } from '../../src/core/email.ts';

describe('email normalisation', () => {
  it('lower-cases without locale rules and trims', () => {
    expect(normalizeEmail('  Sara@Example.COM ')).toBe('sara@example.com');
    expect(normalizeEmail('I@X.COM')).toBe('i@x.com');
  });
  it.each([
    ['a@b.co', true],
    ['first.last+tag@sub.example.com', true],
    ['no-at-sign', false],
    ['a@b', false],
    ['.a@b.com', false],
    ['a..b@c.com', false],
    ['ünï@exämple.com', false],
    [`${'a'.repeat(65)}@b.com`, false],
    [`a@${'b'.repeat(250)}.com`, false],
  ])('%s valid=%s', (email, valid) => {
    expect(isValidEmail(email)).toBe(valid);
  });
  it('throws GoTrue validation errors', () => {
    expect(() => parseEmail('')).toThrow('An email address is required');
    expect(() => parseEmail('bad')).toThrow('Unable to validate email address: invalid format');
  });
});
