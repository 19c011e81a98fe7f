import type { MetaFunction } from 'react-router';
import { localeFromPathname } from '~/config/locales.ts';
import { AccountPage } from '~/features/account/components/account-page.tsx';
import { pageMeta } from '~/lib/seo.ts';

export const meta: MetaFunction = ({ location }) =>
  pageMeta('account', localeFromPathname(location.pathname), location.pathname);

/** `/account` (and `/ar/account`): the signed-in visitor's account page. */
export default function AccountRoute() {
  return <AccountPage />;
}
