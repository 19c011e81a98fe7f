import { arabicFontCss, arabicFontScript } from 'virtual:arabic-font';
import { lazy, type ReactNode, Suspense, useEffect, useSyncExternalStore } from 'react';
import { Links, Meta, Outlet, Scripts, ScrollRestoration, useLocation } from 'react-router';
import css from './app.css?inline';
import { localeDirection, localeFromPathname } from './config/locales.ts';
import { siteConfig } from './config/site.ts';
import { LocaleProvider } from './i18n/locale-context.tsx';
import { isToasterRequested, subscribeToToasterRequest } from './lib/notify.ts';

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
        <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
        <link rel="apple-touch-icon" href="/apple-touch-icon.png" />
        <link rel="manifest" href="/site.webmanifest" />
        {/* All CSS is inlined: no render-blocking stylesheet request (the whole sheet is a few KB). */}
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
