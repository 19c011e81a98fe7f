import { arabicFontCss, arabicFontScript } from 'virtual:arabic-font';
import { lazy, type ReactNode, Suspense, useEffect, useSyncExternalStore } from 'react';
import { Links, Meta, Outlet, Scripts, ScrollRestoration, useLocation } from 'react-router';
// biome-ignore lint/style/noRestrictedImports: the favicon's one source is public/ (also served as /favicon.svg).
import faviconSvg from '../public/favicon.svg?raw';
import css from './app.css?inline';
import { localeDirection, localeFromPathname } from './config/locales.ts';
import { siteConfig } from './config/site.ts';
import { LocaleProvider, useMessages } from './i18n/locale-context.tsx';
import { isToasterRequested, subscribeToToasterRequest } from './lib/notify.ts';

// The SVG favicon as a data: URL, so no request for it starts while the page paints (issue #18): the
// browser fetches the favicon at High priority, and when that fetch began before the largest paint
// Lighthouse's simulation put one more round trip (150 ms) on the LCP path (/auth 907 ms with it,
// /ar/auth 754 ms when it started after the paint). Its <title> is dropped (a tab shows the page's own).
// /favicon.svg stays in public/ for whatever links to it.
const faviconHref = `data:image/svg+xml,${faviconSvg
  .trim()
  .replace(/<title>.*?<\/title>/, '')
  .replace(/["'#<>]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;

// The toast host (and sonner) load only when the first toast is requested (lib/notify.ts); it stays
// mounted afterwards so the "Welcome back!" toast survives the client-side redirect home.
const Toaster = lazy(() =>
  import('./components/ui/toaster.tsx').then((module) => ({ default: module.Toaster })),
);

function ToastHost() {
  const enabled = useSyncExternalStore(subscribeToToasterRequest, isToasterRequested, () => false);
  return enabled ? (
    <Suspense fallback={null}>
      <Toaster />
    </Suspense>
  ) : null;
}

/** The first focusable element of every page: straight to its <main id="main">, past the navigation. */
function SkipLink() {
  const m = useMessages();
  return (
    <a
      href="#main"
      className="fixed start-4 top-4 z-[100] -translate-y-[200%] rounded-full bg-saffron-400 px-5 py-3 text-sm font-semibold text-oasis-950 focus:translate-y-0"
      data-testid="skip-link"
    >
      {m.common.skipToContent}
    </a>
  );
}

export function Layout({ children }: { children: ReactNode }) {
  const { pathname } = useLocation();
  const locale = localeFromPathname(pathname);
  return (
    <html lang={locale} dir={localeDirection[locale]}>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="theme-color" content={siteConfig.themeColor} />
        <Meta />
        <link rel="icon" href="/favicon.ico" sizes="32x32" />
        <link rel="icon" href={faviconHref} type="image/svg+xml" />
        <link rel="apple-touch-icon" href="/apple-touch-icon.png" />
        {/* The CSS is inlined: no render-blocking stylesheet request. Post-build cuts it to the rules
            each page uses and loads the whole sheet with the framework (scripts/css/critical-css.ts). */}
        {/* biome-ignore lint/security/noDangerouslySetInnerHtml: our own compiled stylesheet. */}
        <style dangerouslySetInnerHTML={{ __html: css }} />
        {locale === 'ar' ? (
          <>
            {/* The matched fallback faces and Readex (never preloaded: it must not delay the first
                paint), and the script that switches to Readex after the largest paint
                (scripts/font/arabic-font-plugin.ts says why). */}
            {/* biome-ignore lint/security/noDangerouslySetInnerHtml: generated @font-face rules (build time). */}
            <style dangerouslySetInnerHTML={{ __html: arabicFontCss }} />
            {/* biome-ignore lint/security/noDangerouslySetInnerHtml: our own constant script (CSP-hashed). */}
            <script dangerouslySetInnerHTML={{ __html: arabicFontScript }} />
          </>
        ) : null}
        <Links />
      </head>
      <body>
        <LocaleProvider locale={locale}>
          <SkipLink />
          {children}
          <ToastHost />
        </LocaleProvider>
        <ScrollRestoration />
        <Scripts />
      </body>
    </html>
  );
}

export default function App() {
  useEffect(() => {
    // A stable signal that hydration finished (used by the end-to-end tests).
    document.documentElement.dataset.hydrated = 'true';
  }, []);
  return <Outlet />;
}
