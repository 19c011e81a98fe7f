import { lazy, Suspense } from 'react';
import type { CaptchaState } from '~/features/auth/lib/use-captcha.ts';

// Its own chunk: pages whose service asks for no CAPTCHA (the default) never download the widget.
const CaptchaWidget = lazy(() =>
  import('~/features/auth/components/captcha-widget.tsx').then((mod) => ({ default: mod.CaptchaWidget })),
);

/** Where a form shows the CAPTCHA widget: nothing unless the service's settings ask for it. */
export function CaptchaSlot({ captcha }: { captcha: CaptchaState }) {
  const { settings } = captcha;
  if (!settings) return null;
  return (
    <Suspense fallback={null}>
      <CaptchaWidget captcha={{ ...captcha, settings }} />
    </Suspense>
  );
}
