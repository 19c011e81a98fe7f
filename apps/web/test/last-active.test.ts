// The devices list's "last active" times (features/account/lib/last-active.ts) are written without
// Intl; they must read exactly as Intl writes them in both editions, in any time zone.
import { afterAll, describe, expect, it } from 'vitest';
import { formatLastActive } from '~/features/account/lib/last-active.ts';

const intlLocale = { en: 'en-GB', ar: 'ar-SA-u-nu-latn' } as const;
const originalZone = process.env.TZ;

describe('formatLastActive', () => {
  afterAll(() => {
    process.env.TZ = originalZone;
  });

  it('reads as the examples', () => {
    process.env.TZ = 'UTC';
    expect(formatLastActive('2026-09-05T09:07:00Z', 'en')).toBe('5 Sept 2026, 09:07');
    expect(formatLastActive('2026-09-05T13:07:00Z', 'ar')).toBe('05\u200f/09\u200f/2026، 1:07 م');
    expect(formatLastActive('2026-01-03T00:30:00Z', 'ar')).toBe('03\u200f/01\u200f/2026، 12:30 ص');
    expect(formatLastActive('2026-01-03T12:00:00Z', 'ar')).toBe('03\u200f/01\u200f/2026، 12:00 م');
  });

  for (const zone of ['UTC', 'Asia/Riyadh', 'America/New_York', 'Asia/Kolkata', 'Pacific/Chatham']) {
    it(`matches Intl's medium date and short time in ${zone}`, () => {
      process.env.TZ = zone;
      for (const locale of ['en', 'ar'] as const) {
        // Created after the zone is set: a formatter keeps the zone it was made in.
        const intl = new Intl.DateTimeFormat(intlLocale[locale], { dateStyle: 'medium', timeStyle: 'short' });
        // Every hour of the day in every month over four years (DST changes included), odd minutes.
        for (let t = Date.UTC(2024, 0, 1); t < Date.UTC(2028, 0, 1); t += 3_600_000 * 7 + 60_000 * 13) {
          const iso = new Date(t).toISOString();
          expect(formatLastActive(iso, locale), `${iso} ${locale}`).toBe(intl.format(new Date(iso)));
        }
      }
    });
  }
});
