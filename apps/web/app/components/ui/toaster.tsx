import { Toaster as Sonner } from 'sonner';
import { localeDirection } from '~/config/locales.ts';
import { useLocale, useMessages } from '~/i18n/locale-context.tsx';

/** The toast host (sonner), styled with the site's tokens. Loaded lazily from root.tsx. */
export function Toaster() {
  const locale = useLocale();
  const m = useMessages();
  return (
    <Sonner
      position="top-center"
      dir={localeDirection[locale]}
      // The region and close-button names in the page's language (sonner's own are English).
      containerAriaLabel={m.common.notifications}
      closeButton
      duration={6000}
      toastOptions={{
        unstyled: false,
        closeButtonAriaLabel: m.common.closeNotification,
        classNames: {
          toast: 'rounded-xl! border! font-sans! shadow-lg!',
          title: 'font-bold! text-base!',
          description: 'text-sm!',
          error: 'border-danger! bg-danger! text-white! [&_[data-description]]:text-white!',
          success: 'border-oasis-700! bg-white! text-ink!',
          // WCAG 2.2 target size: sonner's close button is 20 px, 24 px is the minimum.
          closeButton: 'size-6!',
        },
      }}
    />
  );
}
