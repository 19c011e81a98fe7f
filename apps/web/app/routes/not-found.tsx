import { useEffect } from 'react';
import { type MetaFunction, useLocation } from 'react-router';
import { BrandMark } from '~/components/layout/brand-mark.tsx';
import { LanguageSwitcher } from '~/components/layout/language-switcher.tsx';
import { buttonVariants } from '~/components/ui/button.tsx';
import { localeFromPathname } from '~/config/locales.ts';
import { paths } from '~/config/paths.ts';
import { useLocale, useMessages } from '~/i18n/locale-context.tsx';
import { pageMeta } from '~/lib/seo.ts';

export const meta: MetaFunction = ({ location }) =>
  pageMeta('notFound', localeFromPathname(location.pathname), location.pathname);

/**
 * Any unknown route. Prerendered once per locale as /404 and served by the Node process with
 * status 404 for every unknown path; no loader (the prerenderer rejects non-200 loaders).
 */
export default function NotFoundRoute() {
  const m = useMessages();
  const locale = useLocale();
  const { pathname } = useLocation();

  useEffect(() => {
    // Spec §2: the missing path is logged to the console. This runs after hydration, when the
    // router knows the real URL (the static file is the same for every missing path).
    console.error('404 Error: User attempted to access non-existent route:', pathname);
  }, [pathname]);

  return (
    <main
      id="main"
      className="flex min-h-dvh flex-col items-center justify-center bg-sand-50 px-4 text-center"
    >
      <BrandMark className="size-12" />
      <p className="mt-8 text-7xl font-extrabold tracking-tight text-oasis-800">{m.notFound.code}</p>
      <h1 className="mt-4 text-2xl font-bold sm:text-3xl">{m.notFound.heading}</h1>
      <a
        href={paths.home.getHref(locale)}
        className={buttonVariants({ variant: 'solid', size: 'lg', className: 'mt-8' })}
      >
        {m.notFound.returnHome}
      </a>
      <LanguageSwitcher page="notFound" className="mt-6 min-h-10 px-3 text-oasis-800 hover:underline" />
    </main>
  );
}
