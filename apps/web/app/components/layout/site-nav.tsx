import { type ReactNode, useEffect, useRef, useState } from 'react';
import { Button, buttonVariants } from '~/components/ui/button.tsx';
import { LogOut, Menu, X } from '~/components/ui/icons.tsx';
import { paths, type SectionId } from '~/config/paths.ts';
import { useAuthSession } from '~/hooks/use-auth-session.ts';
import { useLocale, useMessages } from '~/i18n/locale-context.tsx';
import { getAuthClient } from '~/lib/auth-client.ts';
import { cn } from '~/lib/utils.ts';
import { BrandMark } from './brand-mark.tsx';
import { FirstPaintAfter } from './first-paint-after.tsx';
import { LanguageSwitcher, type SwitcherPage } from './language-switcher.tsx';

/** One navigation per page, so a fixed id (the inline script and the toggle refer to it). */
export const menuId = 'site-menu';

// `beforetoggle` fires synchronously when the popover opens or closes, so the toggle's state is
// exposed in the same task as the tap. Kept tiny: it ships in the home page's first 14 KB.
export const menuScript = `(()=>{const m=document.getElementById("${menuId}"),b=document.querySelector('[popovertarget="${menuId}"]');m.addEventListener("beforetoggle",e=>{const o=e.newState=="open";b.ariaExpanded=o;b.ariaLabel=b.dataset[o?"close":"open"]});m.addEventListener("click",e=>{e.target.closest("a")&&m.matches(":popover-open")&&m.hidePopover()})})()`;

export const navSections = [
  'products',
  'solutions',
  'team',
  'contact',
] as const satisfies readonly SectionId[];

/**
 * Fixed top navigation (spec §2). The prerendered HTML shows the signed-out controls; once the
 * session has been read on the client they switch to the email and Sign Out. On small screens a
 * toggle opens a menu with the same items.
 *
 * The menu is an HTML popover (`popover` + `popovertarget`), so the very first tap opens it before any
 * framework script has loaded (the home page only starts React at the first interaction), and the
 * browser provides Escape, light dismiss and focus return. `menuScript` (inline, CSP-hashed by the
 * server) keeps aria-expanded and the toggle's name in step and closes the menu when an item is
 * chosen, with or without React; after hydration React mirrors the popover state in `open`.
 * `pageScript` is the page's own inline script, run in the same element before menuScript (still
 * before <main> is parsed).
 */
export function SiteNav({
  pageScript,
  page = 'home',
  signedInExtra,
}: {
  pageScript?: string;
  /** The page the language link points to in the other edition. */
  page?: SwitcherPage;
  /** More controls for a signed-in visitor, before Sign Out (the home page: Add a passkey). */
  signedInExtra?: ReactNode;
} = {}) {
  const m = useMessages();
  const locale = useLocale();
  const script = pageScript ? `${pageScript};${menuScript}` : menuScript;
  const session = useAuthSession();
  const [open, setOpen] = useState(false);
  const [signingOut, setSigningOut] = useState(false);
  const menuRef = useRef<HTMLDivElement>(null);

  // Mirror the popover's state (it may already be open when React hydrates).
  useEffect(() => {
    const menu = menuRef.current;
    if (!menu) return;
    setOpen(menu.matches(':popover-open'));
    const onBeforeToggle = (event: Event) => setOpen((event as ToggleEvent).newState === 'open');
    menu.addEventListener('beforetoggle', onBeforeToggle);
    return () => menu.removeEventListener('beforetoggle', onBeforeToggle);
  }, []);

  const close = () => {
    const menu = menuRef.current;
    if (menu?.matches(':popover-open')) menu.hidePopover();
  };

  const refocus = useRef(false);
  const signOut = async () => {
    setSigningOut(true);
    // Set before the call: the SIGNED_OUT event (and its render) comes before signOut() resolves.
    refocus.current = true;
    try {
      const auth = await getAuthClient();
      const { error } = await auth.signOut();
      if (error) console.error('Sign out failed', error.message);
    } finally {
      setSigningOut(false);
      close();
    }
  };

  // The Sign Out button that had focus is gone once signed out: focus would fall to the page's
  // start. It goes to the Sign In link that took its place (or the menu toggle on small screens,
  // where the menu has closed), so keyboard and screen-reader users stay where they were.
  useEffect(() => {
    if (!refocus.current || session.status !== 'signed-out') return;
    refocus.current = false;
    const signIn = document.querySelector<HTMLElement>('[data-testid="nav-signin-bar"]');
    const toggle = document.querySelector<HTMLElement>(`[popovertarget="${menuId}"]`);
    (signIn?.offsetParent ? signIn : toggle)?.focus();
  }, [session.status]);

  const signedIn = session.status === 'signed-in' ? session : null;

  // Links inside the menu are closed by `menuScript`'s click listener (before and after hydration).
  const sectionLinks = (variant: 'bar' | 'menu') =>
    navSections.map((id) => (
      <li key={id}>
        <a
          href={paths.section.getHref(locale, id)}
          className={cn(
            'block rounded-lg font-medium transition-colors',
            variant === 'bar'
              ? 'px-3 py-2 text-sm text-oasis-50 hover:bg-white/10 hover:text-white'
              : 'px-3 py-3 text-base text-white hover:bg-white/10',
          )}
        >
          {m.nav.sections[id]}
        </a>
      </li>
    ));

  const authControls = (variant: 'bar' | 'menu') =>
    signedIn ? (
      <div
        className={cn('flex gap-3', variant === 'menu' ? 'flex-col items-stretch' : 'items-center')}
        data-testid={`nav-session-${variant}`}
      >
        {/* The email is the way to the account page (issue #14). */}
        <a
          href={paths.account.getHref(locale)}
          className="max-w-56 truncate rounded-sm text-sm text-oasis-100 underline-offset-4 hover:underline"
          title={`${m.nav.accountLink}: ${signedIn.email}`}
          data-testid={`nav-account-${variant}`}
        >
          <span className="sr-only">{m.nav.signedInAs} </span>
          <bdi data-testid="nav-email">{signedIn.email}</bdi>
        </a>
        {signedInExtra}
        <Button variant="outline" size="sm" className="text-white" onClick={signOut} disabled={signingOut}>
          <LogOut aria-hidden="true" className="rtl:-scale-x-100" />
          {m.nav.signOut}
        </Button>
      </div>
    ) : (
      <div className={cn('flex gap-2', variant === 'menu' ? 'flex-col items-stretch' : 'items-center')}>
        <a
          href={paths.auth.getHref(locale)}
          className={cn(buttonVariants({ variant: 'ghost', size: 'sm' }), 'text-white')}
          data-testid={`nav-signin-${variant}`}
        >
          {m.nav.signIn}
        </a>
        <a
          href={paths.auth.getHref(locale, 'signup')}
          className={buttonVariants({ variant: 'primary', size: 'sm' })}
        >
          {m.nav.signUp}
        </a>
      </div>
    );

  return (
    <header className="fixed inset-x-0 top-0 z-50 border-b border-white/10 bg-oasis-950/95 backdrop-blur">
      {/* The menu comes after every control of the bar (and shows only on small screens). */}
      <FirstPaintAfter id={menuId} />
      <nav
        aria-label={m.nav.label}
        className="mx-auto flex h-16 max-w-7xl items-center gap-4 px-4 sm:px-6 lg:px-8"
      >
        <a
          href={paths.home.getHref(locale)}
          className="flex items-center gap-2.5 rounded-lg text-lg font-bold text-white"
          aria-label={m.common.homeLabel}
        >
          <BrandMark />
          <span aria-hidden="true">{m.meta.siteName}</span>
        </a>
        <ul className="ms-6 hidden items-center gap-1 lg:flex">{sectionLinks('bar')}</ul>
        {/* One switcher for every width: it stays in the bar, so no menu has to be opened to find it. */}
        <LanguageSwitcher
          page={page}
          className="ms-auto min-h-10 px-3 text-sm text-oasis-50 hover:bg-white/10 hover:text-white"
        />
        <div className="hidden lg:block">{authControls('bar')}</div>
        <Button
          variant="ghost"
          size="icon"
          className="group -ms-2 text-white lg:hidden"
          popoverTarget={menuId}
          // menuScript may have updated aria-expanded/aria-label before React hydrates; the effect
          // above then syncs `open`, so the hydration-time difference is expected.
          suppressHydrationWarning
          aria-controls={menuId}
          aria-expanded={open}
          aria-label={open ? m.nav.closeMenu : m.nav.openMenu}
          data-open={m.nav.openMenu}
          data-close={m.nav.closeMenu}
        >
          <Menu aria-hidden="true" className="size-6! group-aria-expanded:hidden" />
          <X aria-hidden="true" className="hidden size-6! group-aria-expanded:block" />
        </Button>
        {/* A popover lives in the top layer: placed explicitly under the 4rem bar, full width. */}
        <div
          ref={menuRef}
          id={menuId}
          popover="auto"
          className="inset-x-0 top-16 bottom-auto m-0 max-h-[calc(100dvh-4rem)] w-full overflow-y-auto border-0 border-t border-white/10 bg-oasis-950 px-4 pb-6 pt-2 text-white lg:hidden"
          data-testid="mobile-menu"
        >
          <ul className="flex flex-col">{sectionLinks('menu')}</ul>
          <div className="mt-4 border-t border-white/10 pt-4">{authControls('menu')}</div>
        </div>
      </nav>
      {/* One element for the page's own inline script and menuScript: each inline script costs its
          page a CSP hash in the response headers (issue #18). `;` keeps the two IIFEs apart. */}
      {/* biome-ignore lint/security/noDangerouslySetInnerHtml: our own constant scripts (see menuScript). */}
      <script dangerouslySetInnerHTML={{ __html: script }} />
    </header>
  );
}
