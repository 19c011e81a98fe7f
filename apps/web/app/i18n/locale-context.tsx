import { createContext, type ReactNode, use } from 'react';
import { defaultLocale, type Locale } from '~/config/locales.ts';
import { getMessages, type Messages } from './messages.ts';

type LocaleContextValue = { locale: Locale; messages: Messages };

const LocaleContext = createContext<LocaleContextValue>({
  locale: defaultLocale,
  messages: getMessages(defaultLocale),
});

export function LocaleProvider({ locale, children }: { locale: Locale; children: ReactNode }) {
  return <LocaleContext value={{ locale, messages: getMessages(locale) }}>{children}</LocaleContext>;
}

/** The messages of the current page's locale (taken from the URL prefix in root.tsx). */
export function useMessages(): Messages {
  return use(LocaleContext).messages;
}

export function useLocale(): Locale {
  return use(LocaleContext).locale;
}
