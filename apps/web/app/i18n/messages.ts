import type { Locale } from '../config/locales.ts';
import { en } from './en.ts';

/** Widens the literal types of the English catalog: same keys, any strings. */
type Widen<T> = T extends string
  ? string
  : T extends readonly unknown[]
    ? { readonly [K in keyof T]: Widen<T[K]> }
    : T extends object
      ? { readonly [K in keyof T]: Widen<T[K]> }
      : T;

/** The shape every catalog must have. `ar.ts` is typed `Messages`, so a missing key fails the build. */
export type Messages = Widen<typeof en>;

/**
 * Catalogs by locale. A locale without its own catalog falls back to English so the site keeps
 * building while a translation is in progress; the Arabic edition registers `ar` here.
 */
export const catalogs: Partial<Record<Locale, Messages>> = { en };

export function getMessages(locale: Locale): Messages {
  return catalogs[locale] ?? en;
}
