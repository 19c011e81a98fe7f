import type { MetaFunction } from 'react-router';
import { localeFromPathname } from '~/config/locales.ts';
import { ResetPasswordForm } from '~/features/auth/components/reset-password-form.tsx';
import { pageMeta } from '~/lib/seo.ts';

export const meta: MetaFunction = ({ location }) =>
  pageMeta('reset', localeFromPathname(location.pathname), location.pathname);

/** `/auth/reset` (and `/ar/auth/reset`): where a recovery link lands, "Set a new password". */
export default function ResetPasswordRoute() {
  return <ResetPasswordForm />;
}
