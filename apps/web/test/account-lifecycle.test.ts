import { describe, expect, it } from 'vitest';
import { withSeconds } from '~/features/auth/lib/countdown.ts';
import { validateCredentials } from '~/features/auth/lib/credentials-schema.ts';
import { isWrongSecondFactor } from '~/features/auth/lib/mfa.ts';
import { noticeFor, noticeFromState } from '~/features/auth/lib/notice.ts';
import { needsSecondFactor, tokenAal } from '~/lib/assurance.ts';
import { cleanLandingUrl, linkProblem, parseAuthLanding } from '~/lib/auth-landing.ts';

const v = {
  invalidEmail: 'Invalid email address',
  passwordTooShort: 'Password must be at least 6 characters',
};

describe('email link landings', () => {
  it('reads a PKCE code from the query', () => {
    expect(parseAuthLanding('?code=abc-123', '')).toEqual({ code: 'abc-123', foreignTokens: false });
  });

  it('reads an error from the fragment or the query (query wins), with its code', () => {
    const hash =
      '#error=access_denied&error_code=otp_expired&error_description=Email+link+is+invalid+or+has+expired&sb=';
    expect(parseAuthLanding('', hash)).toEqual({
      error: { code: 'otp_expired', description: 'Email link is invalid or has expired' },
      foreignTokens: false,
    });
    expect(parseAuthLanding('?error=access_denied&error_code=flow_state_expired', hash)?.error?.code).toBe(
      'flow_state_expired',
    );
    // An error without a code is named by `error`.
    expect(parseAuthLanding('', '#error=access_denied')?.error?.code).toBe('access_denied');
  });

  it('flags session tokens in the fragment (implicit or crafted links) and never returns them', () => {
    const landing = parseAuthLanding('', '#access_token=eyJ.x.y&refresh_token=r1&type=signup');
    expect(landing).toEqual({ foreignTokens: true });
  });

  it('ignores URLs without a link result', () => {
    expect(parseAuthLanding('?mode=signup', '#products')).toBeUndefined();
    expect(parseAuthLanding('', '')).toBeUndefined();
  });

  it('cleans the link out of the URL, keeping everything else', () => {
    expect(cleanLandingUrl('/', '?code=abc&sb_flow_id=1', '')).toBe('/');
    expect(cleanLandingUrl('/auth', '?mode=signup&code=abc', '')).toBe('/auth?mode=signup');
    expect(
      cleanLandingUrl('/ar/', '?error=access_denied&error_code=otp_expired', '#error=access_denied&sb='),
    ).toBe('/ar/');
    expect(cleanLandingUrl('/', '', '#access_token=a&refresh_token=b')).toBe('/');
    expect(cleanLandingUrl('/', '', '#team')).toBe('/#team');
  });

  it('names expired, used and unknown links "expired" (a new link is the next step), the rest invalid', () => {
    for (const code of ['otp_expired', 'flow_state_expired', 'flow_state_not_found'])
      expect(linkProblem(code)).toBe('expired');
    for (const code of ['access_denied', 'bad_code_verifier', '', undefined])
      expect(linkProblem(code)).toBe('invalid');
    // A sign-in with Google, Apple … that came back refused is named as such (issue #15).
    for (const code of ['provider_error', 'bad_oauth_state', 'identity_already_exists'])
      expect(linkProblem(code)).toBe('provider');
    expect(linkProblem('email_exists')).toBe('provider-email');
  });

  it('turns an outcome into the auth page notice, and reads it back from navigation state only when valid', () => {
    expect(noticeFor({ kind: 'no-session' })).toBe('confirmed');
    expect(noticeFor({ kind: 'link-failed', problem: 'expired' })).toBe('expired');
    expect(noticeFor({ kind: 'signed-in', recovery: false })).toBeUndefined();
    expect(noticeFromState({ notice: 'invalid' })).toBe('invalid');
    expect(noticeFromState({ notice: '<script>' })).toBeUndefined();
    expect(noticeFromState(null)).toBeUndefined();
  });
});

describe('second factor at sign-in', () => {
  const token = (claims: object) => `h.${btoa(JSON.stringify(claims)).replace(/=+$/, '')}.s`;
  it('reads the aal claim of the access token', () => {
    expect(tokenAal(token({ aal: 'aal2' }))).toBe('aal2');
    expect(tokenAal(token({}))).toBe('aal1');
    expect(tokenAal('not a jwt')).toBe('aal1');
  });

  it('holds the sign-in back only while a verified factor is owed', () => {
    const verified = [{ status: 'verified' }];
    expect(needsSecondFactor({ access_token: token({ aal: 'aal1' }), user: { factors: verified } })).toBe(
      true,
    );
    expect(needsSecondFactor({ access_token: token({ aal: 'aal2' }), user: { factors: verified } })).toBe(
      false,
    );
    expect(
      needsSecondFactor({
        access_token: token({ aal: 'aal1' }),
        user: { factors: [{ status: 'unverified' }] },
      }),
    ).toBe(false);
    expect(needsSecondFactor({ access_token: token({ aal: 'aal1' }), user: {} })).toBe(false);
  });

  it('gives wrong and expired codes their own message', () => {
    expect(isWrongSecondFactor({ code: 'mfa_verification_failed' })).toBe(true);
    expect(isWrongSecondFactor({ code: 'mfa_challenge_expired' })).toBe(true);
    expect(isWrongSecondFactor({ code: 'over_request_rate_limit' })).toBe(false);
  });
});

describe('form details', () => {
  it.each(['مستخدم@مثال.السعودية', '用户@例子.广告', 'first.last+tag@sub.example.com'])(
    'lets the internationalised or plain address %s through to the service',
    (email) => {
      expect(validateCredentials({ email, password: '123456' }, v).ok).toBe(true);
    },
  );

  it.each(['a@b.c', 'a@@b.co', 'a@b..co', 'a"b@c.com'])('still refuses %s', (email) => {
    expect(validateCredentials({ email, password: '123456' }, v)).toEqual({
      ok: false,
      message: v.invalidEmail,
      field: 'email',
    });
  });

  it('fills the countdown text', () => {
    expect(withSeconds('You can ask for another link in {0} s.', 42)).toBe(
      'You can ask for another link in 42 s.',
    );
  });
});
