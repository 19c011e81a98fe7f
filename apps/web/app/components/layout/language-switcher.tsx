import { useLocation, useSearchParams } from 'react-router';
import { Languages } from '~/components/ui/icons.tsx';
import {
  alternateLocale,
  type Locale,
  localeNativeName,
  localePrefix,
  stripLocale,
} from '~/config/locales.ts';
import { paths } from '~/config/paths.ts';
import { useHydrated } from '~/hooks/use-hydrated.ts';
import { useLocale } from '~/i18n/locale-context.tsx';
import { parseAuthMode } from '~/lib/auth-mode.ts';
import { cn } from '~/lib/utils.ts';

export type SwitcherPage = 'home' | 'auth' | 'forgot' | 'reset' | 'account' | 'privacy' | 'notFound';

/** The equivalent page in the other edition; keeps the auth page's `?mode=`. */
export function alternateHref(page: SwitcherPage, target: Locale, pathname: string, search: string): string {
  if (page === 'home') return paths.home.getHref(target);
  if (page === 'auth') return paths.auth.getHref(target, parseAuthMode(search));
  if (page === 'forgot') return paths.forgotPassword.getHref(target);
  if (page === 'reset') return paths.resetPassword.getHref(target);
  if (page === 'account') return paths.account.getHref(target);
  if (page === 'privacy') return paths.privacy.getHref(target);
  return `${localePrefix(target)}${stripLocale(pathname)}`;
}

export type LanguageSwitcherProps = { page: SwitcherPage; className?: string; onNavigate?: () => void };

/**
 * A plain link to the same page in the other language (frontend reference §4: an <a> with hreflang
 * and lang, no script needed, no Accept-Language redirect). Before hydration it points at what the
 * prerendered file shows (sign-in mode; the other edition's home from a 404), so the hydrating render
 * matches the static HTML; afterwards it follows the real URL (?mode=, the missing path).
 */
export function LanguageSwitcher({ page, className, onNavigate }: LanguageSwitcherProps) {
  const locale = useLocale();
  const target = alternateLocale(locale);
  const { pathname, search } = useLocation();
  useSearchParams(); // re-render when ?mode= changes through the auth page's toggle
  const hydrated = useHydrated();
  const href = hydrated
    ? alternateHref(page, target, pathname, search)
    : page === 'notFound'
      ? paths.home.getHref(target)
      : alternateHref(page, target, pathname, '');
  return (
    <a
      href={href}
      hrefLang={target}
      lang={target}
      onClick={onNavigate}
      data-testid="language-switcher"
      className={cn('inline-flex items-center gap-2 rounded-lg font-medium', className)}
    >
      <Languages aria-hidden="true" className="size-4 shrink-0" />
      {localeNativeName[target]}
    </a>
  );
}
