import type { MetaFunction } from 'react-router';
import { localeFromPathname } from '~/config/locales.ts';
import { ResetPasswordForm } from '~/features/auth/components/reset-password-form.tsx';
import { pageMeta } from '~/lib/seo.ts';

export const meta: MetaFunction = ({ location }) =>
  pageMeta('reset', localeFromPathname(location.pathname), location.pathname);

// Runs while the page is parsed: marks a visit without an email link (opened by hand, or from
// history), so the prerendered page shows its "no recovery session" answer with no framework loaded.
const noLinkScript = `/[?&#](code|error|error_code|error_description)=/.test(location.search+location.hash)||(document.documentElement.dataset.noLink="")`;

/** `/auth/reset` (and `/ar/auth/reset`): where a recovery link lands, "Set a new password". */
export default function ResetPasswordRoute() {
  return (
    <>
      {/* biome-ignore lint/security/noDangerouslySetInnerHtml: our own constant script (CSP-hashed). */}
      <script dangerouslySetInnerHTML={{ __html: noLinkScript }} />
      <ResetPasswordForm />
    </>
  );
}
