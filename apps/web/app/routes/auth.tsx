import { type MetaFunction, useSearchParams } from 'react-router';
import { localeFromPathname } from '~/config/locales.ts';
import { AuthForm } from '~/features/auth/components/auth-form.tsx';
import { useHydrated } from '~/hooks/use-hydrated.ts';
import { parseAuthMode } from '~/lib/auth-mode.ts';
import { pageMeta } from '~/lib/seo.ts';

export const meta: MetaFunction = ({ location }) =>
  pageMeta('auth', localeFromPathname(location.pathname), location.pathname);

/**
 * `/auth`. The page is prerendered once (sign-in mode, since the query string is not part of a
 * static file); `?mode=signup` is applied on the client.
 */
export default function AuthRoute() {
  const [searchParams] = useSearchParams();
  // The static file is the sign-in page; the hydrating render must match it, then ?mode= applies.
  const hydrated = useHydrated();
  return <AuthForm initialMode={hydrated ? parseAuthMode(searchParams) : 'signin'} />;
}
