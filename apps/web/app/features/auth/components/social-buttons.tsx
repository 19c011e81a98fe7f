import { type ReactNode, useState } from 'react';
import { paths } from '~/config/paths.ts';
import { type SocialProvider, useServiceSettings } from '~/features/auth/lib/service-settings.ts';
import { useLocale, useMessages } from '~/i18n/locale-context.tsx';
import { getAuthClient } from '~/lib/auth-client.ts';
import { notifyError } from '~/lib/notify.ts';
import { cn } from '~/lib/utils.ts';

/** Each provider's name and mark (inline SVG, per its brand rules: unaltered logo, its colours). */
const BRANDS: Record<SocialProvider, { name: string; icon: ReactNode; className: string }> = {
  google: {
    name: 'Google',
    // Google's "G" in its four colours on a white button with a grey border.
    className: 'border border-[#747775] bg-white text-[#1f1f1f] hover:bg-[#f2f2f2]',
    icon: (
      <svg viewBox="0 0 48 48" aria-hidden="true">
        <path
          fill="#EA4335"
          d="M24 9.5c3.54 0 6.71 1.22 9.21 3.6l6.85-6.85C35.9 2.38 30.47 0 24 0 14.62 0 6.51 5.38 2.56 13.22l7.98 6.19C12.43 13.72 17.74 9.5 24 9.5z"
        />
        <path
          fill="#4285F4"
          d="M46.98 24.55c0-1.57-.15-3.09-.38-4.55H24v9.02h12.94c-.58 2.96-2.26 5.48-4.78 7.18l7.73 6c4.51-4.18 7.09-10.36 7.09-17.65z"
        />
        <path
          fill="#FBBC05"
          d="M10.53 28.59c-.48-1.45-.76-2.99-.76-4.59s.27-3.14.76-4.59l-7.98-6.19C.92 16.46 0 20.12 0 24c0 3.88.92 7.54 2.56 10.78l7.97-6.19z"
        />
        <path
          fill="#34A853"
          d="M24 48c6.48 0 11.93-2.13 15.89-5.81l-7.73-6c-2.15 1.45-4.92 2.3-8.16 2.3-6.26 0-11.57-4.22-13.47-9.91l-7.98 6.19C6.51 42.62 14.62 48 24 48z"
        />
      </svg>
    ),
  },
  apple: {
    name: 'Apple',
    // Apple: the logo in white on a black button.
    className: 'bg-black text-white hover:bg-[#1f1f1f]',
    icon: (
      <svg viewBox="0 0 384 512" aria-hidden="true" fill="currentColor">
        <path d="M318.7 268.7c-.2-36.7 16.4-64.4 50-84.8-18.8-26.9-47.2-41.7-84.7-44.6-35.5-2.8-74.3 20.7-88.5 20.7-15 0-49.4-19.7-76.4-19.7C63.3 141.2 4 184.8 4 273.5q0 39.3 14.4 81.2c12.8 36.7 59 126.7 107.2 125.2 25.2-.6 43-17.9 75.8-17.9 31.8 0 48.3 17.9 76.4 17.9 48.6-.7 90.4-82.5 102.6-119.3-65.2-30.7-61.7-90-61.7-91.9zm-56.6-164.2c27.3-32.4 24.8-61.9 24-72.5-24.1 1.4-52 16.4-67.9 34.9-17.5 19.8-27.8 44.3-25.6 71.9 26.1 2 49.9-11.4 69.5-34.3z" />
      </svg>
    ),
  },
  azure: {
    name: 'Microsoft',
    className: 'border border-[#8c8c8c] bg-white text-[#5e5e5e] hover:bg-[#f2f2f2]',
    icon: (
      <svg viewBox="0 0 21 21" aria-hidden="true">
        <path fill="#f25022" d="M1 1h9v9H1z" />
        <path fill="#00a4ef" d="M1 11h9v9H1z" />
        <path fill="#7fba00" d="M11 1h9v9h-9z" />
        <path fill="#ffb900" d="M11 11h9v9h-9z" />
      </svg>
    ),
  },
  github: {
    name: 'GitHub',
    className: 'bg-[#24292f] text-white hover:bg-[#32383f]',
    icon: (
      <svg viewBox="0 0 16 16" aria-hidden="true" fill="currentColor">
        <path d="M8 0C3.58 0 0 3.58 0 8c0 3.54 2.29 6.53 5.47 7.59.4.07.55-.17.55-.38 0-.19-.01-.82-.01-1.49-2.01.37-2.53-.49-2.69-.94-.09-.23-.48-.94-.82-1.13-.28-.15-.68-.52-.01-.53.63-.01 1.08.58 1.23.82.72 1.21 1.87.87 2.33.66.07-.52.28-.87.51-1.07-1.78-.2-3.64-.89-3.64-3.95 0-.87.31-1.59.82-2.15-.08-.2-.36-1.02.08-2.12 0 0 .67-.21 2.2.82.64-.18 1.32-.27 2-.27.68 0 1.36.09 2 .27 1.53-1.04 2.2-.82 2.2-.82.44 1.1.16 1.92.08 2.12.51.56.82 1.27.82 2.15 0 3.07-1.87 3.75-3.65 3.95.29.25.54.73.54 1.48 0 1.07-.01 1.93-.01 2.2 0 .21.15.46.55.38A8.013 8.013 0 0016 8c0-4.42-3.58-8-8-8z" />
      </svg>
    ),
  },
  x: {
    name: 'X',
    className: 'bg-black text-white hover:bg-[#1f1f1f]',
    icon: (
      <svg viewBox="0 0 24 24" aria-hidden="true" fill="currentColor">
        <path d="M18.244 2.25h3.308l-7.227 8.26 8.502 11.24H16.17l-5.214-6.817L4.99 21.75H1.68l7.73-8.835L1.254 2.25H8.08l4.713 6.231zm-1.161 17.52h1.833L7.084 4.126H5.117z" />
      </svg>
    ),
  },
  oidc: {
    name: 'OpenID Connect',
    className: 'border border-current/40 text-current hover:bg-current/10',
    icon: (
      <svg viewBox="0 0 24 24" aria-hidden="true" fill="none" stroke="currentColor" strokeWidth="2">
        <circle cx="8" cy="15" r="4" />
        <path d="m10.85 12.15 8.65-8.65M18 5l2 2M15 8l2 2" />
      </svg>
    ),
  },
};

/**
 * "Continue with Google / Apple / …" for the providers the service has switched on, under the
 * email form on sign-in and sign-up. Rendered after hydration only (nothing of it is in the
 * prerendered page or loads before the visitor interacts); hidden when no provider is enabled.
 * The provider sends the visitor back to the home page with `?code=`, which the site exchanges
 * like an email link's (lib/auth-landing.ts): same PKCE exchange, same error page.
 */
export function SocialButtons({ disabled }: { disabled?: boolean }) {
  const m = useMessages();
  const locale = useLocale();
  const enabled = useServiceSettings();
  const [leaving, setLeaving] = useState<SocialProvider | undefined>();

  if (!enabled || enabled.providers.length === 0) return null;

  async function go(provider: SocialProvider) {
    setLeaving(provider);
    try {
      const auth = await getAuthClient();
      const { error } = await auth.signInWithOAuth({
        provider: provider as Parameters<typeof auth.signInWithOAuth>[0]['provider'],
        options: { redirectTo: `${window.location.origin}${paths.home.getHref(locale)}` },
      });
      if (error) throw error;
    } catch (err) {
      console.error('Could not start the sign-in', err);
      setLeaving(undefined);
      notifyError(m.auth.errors.title, m.auth.errors.fallback);
    }
  }

  return (
    <div className="mt-6" data-testid="social-sign-in">
      <p className="flex items-center gap-3 text-sm text-muted before:h-px before:flex-1 before:bg-current/20 after:h-px after:flex-1 after:bg-current/20">
        {m.auth.social.divider}
      </p>
      <ul className="mt-4 space-y-3">
        {enabled.providers.map((provider) => {
          const brand = BRANDS[provider];
          const name = provider === 'oidc' ? enabled.oidcName : brand.name;
          return (
            <li key={provider}>
              <button
                type="button"
                className={cn(
                  'inline-flex min-h-12 w-full items-center justify-center gap-3 rounded-full px-6 text-base font-medium transition-colors disabled:opacity-60 [&_svg]:size-5 [&_svg]:shrink-0',
                  brand.className,
                )}
                disabled={disabled || leaving !== undefined}
                onClick={() => void go(provider)}
                data-testid={`social-${provider}`}
              >
                {brand.icon}
                <span>{leaving === provider ? m.auth.pending : `${m.auth.social.continueWith} ${name}`}</span>
              </button>
            </li>
          );
        })}
      </ul>
    </div>
  );
}
