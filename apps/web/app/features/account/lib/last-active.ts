import type { Locale } from '~/config/locales.ts';

const englishMonths = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sept', 'Oct', 'Nov', 'Dec'];
const twoDigits = (n: number) => String(n).padStart(2, '0');

/**
 * A session's "last active" time in the visitor's time zone, exactly as
 * `new Intl.DateTimeFormat(en-GB | ar-SA-u-nu-latn, { dateStyle: 'medium', timeStyle: 'short' })`
 * writes it ("5 Sept 2026, 09:07"; "05‏/09‏/2026، 1:07 م": day and month each followed by a
 * right-to-left mark), but without Intl. The first Intl formatter a page creates loads ICU's locale
 * data on the main thread: 25-30 ms in one piece on the development machine, the account page's
 * longest task once its sections render in slices (over 100 ms under Lighthouse's 4× CPU slowdown,
 * all of it blocking time), and the devices list is the only Intl user of the page.
 * test/last-active.test.ts compares the two over years of dates and several time zones.
 */
export function formatLastActive(iso: string, locale: Locale): string {
  const date = new Date(iso);
  const minutes = twoDigits(date.getMinutes());
  if (locale === 'ar') {
    const hours = date.getHours();
    return `${twoDigits(date.getDate())}\u200f/${twoDigits(date.getMonth() + 1)}\u200f/${date.getFullYear()}، ${hours % 12 || 12}:${minutes} ${hours < 12 ? 'ص' : 'م'}`;
  }
  return `${date.getDate()} ${englishMonths[date.getMonth()]} ${date.getFullYear()}, ${twoDigits(date.getHours())}:${minutes}`;
}
