import { describe, expect, it } from 'vitest';
import { alternateHref } from '~/components/layout/language-switcher.tsx';
import { localizedAuthErrorMessage } from '~/features/auth/lib/localized-auth-error.ts';
import { initials } from '~/features/marketing/components/team-section.tsx';
import { ar } from '~/i18n/ar.ts';
import { en } from '~/i18n/en.ts';
import { getMessages } from '~/i18n/messages.ts';
import { serviceErrorCatalogs } from '~/i18n/service-errors.ts';

type Leaf = { path: string; value: unknown };

function leaves(value: unknown, path = ''): Leaf[] {
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, child]) => leaves(child, path ? `${path}.${key}` : key));
  }
  return [{ path, value }];
}

/**
 * Latin text that is not English copy: platform and brand names, emails, URLs, the 404 code. Anything
 * else written in Latin letters in an Arabic string counts as untranslated.
 */
const latinAllowList = [
  /\b[\w.+-]+@[\w-]+(\.[\w-]+)+\b/g, // emails
  /\bhttps?:\/\/\S+/g, // URLs
  /\b(Instagram|TikTok|LinkedIn|YouTube|Facebook|X|Namaa|English)\b/g,
  // The account page: the file it saves, and technical names Arabic writes in Latin letters too.
  /\b[\w-]+\.json\b/g,
  /\b(QR|JSON)\b/g,
];

function untranslatedLatin(text: string): string[] {
  let rest = text;
  for (const pattern of latinAllowList) rest = rest.replace(pattern, ' ');
  return rest.match(/[A-Za-z]{2,}|\b[A-Za-z]\b/g) ?? [];
}

/** Leaves that are the same in every language on purpose. */
const sameInBothLanguages = new Set([
  'products.platforms.instagram',
  'products.platforms.x',
  'products.platforms.tiktok',
  'products.platforms.facebook',
  'products.platforms.linkedin',
  'products.platforms.youtube',
  'auth.emailPlaceholder',
  'auth.passwordPlaceholder',
  'notFound.code',
  'hero.stats.cagr.value',
  'hero.stats.products.value',
  'market.figures.cagr.value',
  'market.figures.products.value',
]);

describe('Arabic catalog', () => {
  it('is registered for the ar locale', () => {
    expect(getMessages('ar')).toBe(ar);
    expect(getMessages('en')).toBe(en);
  });

  it('has exactly the keys of the English catalog, none missing, none extra, none empty', () => {
    const arLeaves = leaves(ar);
    expect(arLeaves.map((l) => l.path).sort()).toEqual(
      leaves(en)
        .map((l) => l.path)
        .sort(),
    );
    const empty = arLeaves.filter((l) => typeof l.value !== 'string' || l.value.trim() === '');
    expect(empty).toEqual([]);
  });

  it('translates every text (only brand, platform, email and figure leaves may equal English)', () => {
    const enByPath = new Map(leaves(en).map((l) => [l.path, l.value]));
    const same = leaves(ar).filter(
      (l) => !sameInBothLanguages.has(l.path) && l.value === enByPath.get(l.path),
    );
    expect(same).toEqual([]);
  });

  it('contains no untranslated English words', () => {
    const found = [...leaves(ar), ...leaves(serviceErrorCatalogs.ar)]
      .map((l) => ({ path: l.path, words: untranslatedLatin(String(l.value)) }))
      .filter((l) => l.words.length > 0);
    expect(found).toEqual([]);
  });

  it('detects English when it is there (the check itself works)', () => {
    expect(untranslatedLatin('مرحبًا Welcome back')).toEqual(['Welcome', 'back']);
    expect(untranslatedLatin('راسلنا على hello@namaa.ai أو https://namaa.ai عبر Instagram')).toEqual([]);
  });

  it('writes figures with Western digits only, never Arabic-Indic digits', () => {
    const all = leaves(ar)
      .map((l) => String(l.value))
      .join(' ');
    expect(all).not.toMatch(/[\u0660-\u0669\u06F0-\u06F9]/);
    expect(ar.hero.stats.market.value).toMatch(/^\+150 /);
    expect(ar.footer.copyright).toContain('2025');
  });

  it('uses the Arabic brand from the one config value, and keeps the spec structure', () => {
    expect(ar.meta.siteName).toBe('نماء');
    expect(ar.footer.copyright).toBe('© 2025 نماء. جميع الحقوق محفوظة.');
    expect(ar.auth.signup.text).toContain('نماء');
  });
});

describe('auth errors in Arabic', () => {
  const m = ar.auth.errors;

  it('maps the spec catalogue (§8) to the Arabic texts', () => {
    expect(localizedAuthErrorMessage({ message: 'User already registered' }, m, 'ar')).toBe(
      m.alreadyRegistered,
    );
    expect(localizedAuthErrorMessage({ message: 'Invalid login credentials' }, m, 'ar')).toBe(
      m.invalidCredentials,
    );
    expect(localizedAuthErrorMessage({ message: '' }, m, 'ar')).toBe(m.fallback);
    expect(
      localizedAuthErrorMessage({ message: 'weak', code: 'weak_password', reasons: ['pwned'] }, m, 'ar'),
    ).toBe(m.breachedPassword);
  });

  it("replaces the service's English message by the text for its error code", () => {
    expect(
      localizedAuthErrorMessage({ message: 'Email not confirmed', code: 'email_not_confirmed' }, m, 'ar'),
    ).toBe(serviceErrorCatalogs.ar?.byCode.email_not_confirmed);
    expect(localizedAuthErrorMessage({ message: 'Something new', code: 'brand_new_code' }, m, 'ar')).toBe(
      serviceErrorCatalogs.ar?.unknown,
    );
    expect(localizedAuthErrorMessage(new TypeError('Failed to fetch'), m, 'ar')).toBe(
      serviceErrorCatalogs.ar?.unknown,
    );
  });

  it('names the outage when the service answers 502–504, and falls back when the network fails', () => {
    const away = { name: 'AuthRetryableFetchError', message: '{}', status: 503 };
    expect(localizedAuthErrorMessage(away, m, 'ar')).toBe(
      serviceErrorCatalogs.ar?.byCode.service_unavailable,
    );
    const offline = { name: 'AuthRetryableFetchError', message: 'Failed to fetch', status: 0 };
    expect(localizedAuthErrorMessage(offline, m, 'ar')).toBe(m.fallback);
  });

  it("keeps the service's own message in English (spec §8)", () => {
    expect(
      localizedAuthErrorMessage(
        { message: 'Email not confirmed', code: 'email_not_confirmed' },
        en.auth.errors,
        'en',
      ),
    ).toBe('Email not confirmed');
  });
});

describe('language switcher target', () => {
  it('keeps the page, and the mode of the auth page', () => {
    expect(alternateHref('home', 'ar', '/', '')).toBe('/ar/');
    expect(alternateHref('home', 'en', '/ar/', '')).toBe('/');
    expect(alternateHref('auth', 'ar', '/auth', '?mode=signup')).toBe('/ar/auth?mode=signup');
    expect(alternateHref('auth', 'en', '/ar/auth', '?mode=signup')).toBe('/auth?mode=signup');
    expect(alternateHref('auth', 'en', '/ar/auth', '?mode=other')).toBe('/auth');
    expect(alternateHref('notFound', 'en', '/ar/no/such', '')).toBe('/no/such');
    expect(alternateHref('notFound', 'ar', '/no/such', '')).toBe('/ar/no/such');
  });
});

describe('founder initials', () => {
  it('drops titles and articles in both scripts and keeps Arabic letters unjoined', () => {
    expect(initials('Dr. Layla Al-Otaibi')).toBe('LO');
    expect(initials('د. ليلى العتيبي')).toBe('ل\u200Cع');
    expect(initials('فيصل الحربي')).toBe('ف\u200Cح');
  });
});
