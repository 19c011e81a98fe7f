import type { Locale } from '~/config/locales.ts';
import { ar } from './ar.ts';
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

/** Catalogs by locale. Every built locale has its own catalog (a Record, so none can be missing). */
export const catalogs: Record<Locale, Messages> = { en, ar };

export function getMessages(locale: Locale): Messages {
  return catalogs[locale];
}
