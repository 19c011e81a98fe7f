import type { MetaFunction } from 'react-router';
import { localeFromPathname } from '~/config/locales.ts';
import { ForgotPasswordForm } from '~/features/auth/components/forgot-password-form.tsx';
import { pageMeta } from '~/lib/seo.ts';

export const meta: MetaFunction = ({ location }) =>
  pageMeta('forgot', localeFromPathname(location.pathname), location.pathname);

/** `/auth/forgot` (and `/ar/auth/forgot`): the recovery form, a prerendered page of its own. */
export default function ForgotPasswordRoute() {
  return <ForgotPasswordForm />;
}
