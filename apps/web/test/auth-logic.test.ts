import { describe, expect, it } from 'vitest';
import { authErrorMessage } from '~/features/auth/lib/auth-error-message.ts';
import { credentialLimits, validateCredentials } from '~/features/auth/lib/credentials-schema.ts';
import { en } from '~/i18n/en.ts';
import { otherMode, parseAuthMode } from '~/lib/auth-mode.ts';

const v = en.auth.validation;
const e = en.auth.errors;

describe('validateCredentials (spec §5)', () => {
  it('accepts a valid email and a 6-character password', () => {
    expect(validateCredentials({ email: 'a@b.co', password: '123456' }, v)).toEqual({
      ok: true,
      data: { email: 'a@b.co', password: '123456' },
    });
  });

  it.each([
    ['', 'Invalid email address'],
    ['not-an-email', 'Invalid email address'],
    ['a@b', 'Invalid email address'],
    ['a b@c.com', 'Invalid email address'],
  ])('rejects the email %j with "%s"', (email, message) => {
    expect(validateCredentials({ email, password: 'longenough' }, v)).toEqual({
      ok: false,
      message,
      field: 'email',
    });
  });

  it('rejects a short password with the spec message', () => {
    expect(validateCredentials({ email: 'a@b.co', password: '12345' }, v)).toEqual({
      ok: false,
      message: 'Password must be at least 6 characters',
      field: 'password',
    });
  });

  it('shows the email message first when both fields are invalid', () => {
    expect(validateCredentials({ email: 'x', password: '1' }, v)).toEqual({
      ok: false,
      message: 'Invalid email address',
      field: 'email',
    });
  });

  it('enforces the maximum lengths (255 email, 100 password)', () => {
    const longEmail = `${'a'.repeat(250)}@b.com`;
    expect(longEmail.length).toBeGreaterThan(credentialLimits.emailMax);
    expect(validateCredentials({ email: longEmail, password: '123456' }, v).ok).toBe(false);
    expect(validateCredentials({ email: 'a@b.co', password: 'x'.repeat(101) }, v).ok).toBe(false);
    expect(validateCredentials({ email: 'a@b.co', password: 'x'.repeat(100) }, v).ok).toBe(true);
  });

  it('rejects values of the wrong type without throwing', () => {
    expect(validateCredentials({ email: 42, password: null }, v).ok).toBe(false);
    expect(validateCredentials(undefined, v).ok).toBe(false);
  });
});

describe('authErrorMessage (spec §8)', () => {
  it("says a breached password in words (GoTrue's weak_password reason pwned)", () => {
    const pwned = { message: 'Password is known to be weak…', code: 'weak_password', reasons: ['pwned'] };
    expect(authErrorMessage(pwned, e)).toBe(
      'This password has appeared in a data breach or is too common. Please choose a different one.',
    );
    expect(authErrorMessage({ ...pwned, reasons: ['length'] }, e)).toBe('Password is known to be weak…');
  });

  it('maps "User already registered"', () => {
    expect(authErrorMessage({ message: 'User already registered' }, e)).toBe(
      'This email is already registered. Please sign in instead.',
    );
  });

  it('maps "Invalid login credentials"', () => {
    expect(authErrorMessage({ message: 'Invalid login credentials' }, e)).toBe(
      'Invalid email or password. Please try again.',
    );
  });

  it("shows any other error's own message", () => {
    expect(authErrorMessage({ message: 'Email rate limit exceeded' }, e)).toBe('Email rate limit exceeded');
  });

  it.each([
    [{ name: 'AuthRetryableFetchError', message: 'Failed to fetch', status: 0 }],
    [{ name: 'AuthRetryableFetchError', message: '{}', status: 503 }],
    [{ name: 'AuthRetryableFetchError', message: '{}', status: 502 }],
  ])('falls back when the service could not be reached or answered without a body: %j', (error) => {
    expect(authErrorMessage(error, e)).toBe('An error occurred. Please try again.');
  });

  it.each([[{ message: '' }], [{}], [null], [undefined], [new Error('')]])(
    'falls back for an error without a message: %j',
    (error) => {
      expect(authErrorMessage(error, e)).toBe('An error occurred. Please try again.');
    },
  );
});

describe('parseAuthMode (spec §2)', () => {
  it.each([
    ['?mode=signup', 'signup'],
    ['mode=signup', 'signup'],
    ['?mode=signin', 'signin'],
    ['?mode=SIGNUP', 'signin'],
    ['?mode=', 'signin'],
    ['', 'signin'],
    ['?other=1', 'signin'],
  ] as const)('%j opens %s', (search, mode) => {
    expect(parseAuthMode(search)).toBe(mode);
  });

  it('toggles between the two modes', () => {
    expect(otherMode('signin')).toBe('signup');
    expect(otherMode('signup')).toBe('signin');
  });
});
