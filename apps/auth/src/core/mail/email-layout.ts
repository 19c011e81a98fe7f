// The designed message, built with react-email's components (tables and inline styles that Gmail,
// Outlook and Apple Mail render alike). Written with createElement rather than JSX: the service
// runs its .ts sources directly on Node, whose type stripping does not compile JSX, and one
// small `h` keeps the service free of a build step.
//
// It is rendered ONCE per kind and language at start-up (templates.ts), with GoTrue's template
// variables ({{ .ConfirmationURL }}, {{ .Token }}, …) in place of the values; each send only fills
// those in.
// Each component from its own package, not the @react-email/components barrel: the barrel also
// loads the code block (Prism with every language), Markdown and Tailwind, which cost the service
// ~1 s of CPU and ~100 MB of short-lived heap at every start (README, "Footprint").
import { Body } from '@react-email/body';
import { Button } from '@react-email/button';
import { Container } from '@react-email/container';
import { Head } from '@react-email/head';
import { Heading } from '@react-email/heading';
import { Hr } from '@react-email/hr';
import { Html } from '@react-email/html';
import { Link } from '@react-email/link';
import { Preview } from '@react-email/preview';
import { Section } from '@react-email/section';
import { Text } from '@react-email/text';
import { createElement as h, type ReactElement, type ReactNode } from 'react';
import type { Inline, KindCopy, LocaleCopy } from './copy.ts';
import type { MailLocale } from './locale.ts';

/** The site's palette (apps/web/app/app.css, @theme): oasis greens, sand, saffron. */
export const brandColors = {
  ink: '#0f1f1a',
  muted: '#4a5a55',
  sand50: '#fbf8f2',
  sand200: '#e8dfcc',
  oasis50: '#ecf8f3',
  oasis300: '#7fd1b0',
  oasis700: '#0f6549',
  oasis800: '#0d4d39',
  oasis900: '#0b3d2e',
  oasis950: '#062219',
  saffron400: '#f2b441',
} as const;

const c = brandColors;
const fontStack =
  'ui-sans-serif, system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", "Noto Sans", "Noto Sans Arabic", Tahoma, Arial, sans-serif';

// Dark mode: clients that honour prefers-color-scheme (Apple Mail, Outlook.com, Thunderbird) take
// these; Gmail's apps invert colours themselves, which the light palette's contrast survives.
const darkCss = `
:root { color-scheme: light dark; supported-color-schemes: light dark; }
@media (prefers-color-scheme: dark) {
  /* react-email's Body paints its inner cell, so the cell is darkened too (not the card's cells). */
  .nm-body, .nm-body > table > tbody > tr > td { background-color: ${c.oasis950} !important; }
  .nm-card { background-color: ${c.oasis900} !important; border-color: ${c.oasis800} !important; }
  .nm-text { color: ${c.oasis50} !important; }
  .nm-muted { color: #b5cbc2 !important; }
  .nm-link { color: ${c.oasis300} !important; }
  .nm-button { background-color: ${c.oasis300} !important; color: ${c.oasis950} !important; }
  .nm-code { background-color: ${c.oasis800} !important; color: #ffffff !important; border-color: ${c.oasis700} !important; }
  .nm-hr { border-color: ${c.oasis800} !important; }
}`;

/** react-email's plain-text conversion leaves out elements marked so (a data-* prop, hence the cast). */
const skipInText = { 'data-skip-in-text': 'true' } as object;

function inline(parts: Inline[]): ReactNode[] {
  return parts.map((p, i) =>
    typeof p === 'string'
      ? p
      : // An address is Latin text: isolated left to right so an Arabic sentence does not reorder it.
        h('span', { key: i, dir: 'ltr', style: { unicodeBidi: 'isolate' } }, `{{ .${p.variable} }}`),
  );
}

export function emailElement(opts: {
  locale: MailLocale;
  copy: LocaleCopy;
  kind: KindCopy;
  minutes: number;
}): ReactElement {
  const { locale, copy, kind } = opts;
  const rtl = locale === 'ar';
  const dir = rtl ? 'rtl' : 'ltr';
  const align = rtl ? 'right' : 'left';
  const text = {
    color: c.ink,
    fontSize: '16px',
    lineHeight: '26px',
    margin: '0 0 16px',
    textAlign: align,
  } as const;
  const muted = { ...text, color: c.muted, fontSize: '14px', lineHeight: '22px' } as const;
  const hasLink = kind.action !== undefined;
  const intro = inline(kind.intro);

  return h(
    Html,
    { lang: locale, dir },
    h(
      Head,
      null,
      h('meta', { name: 'color-scheme', content: 'light dark' }),
      h('meta', { name: 'supported-color-schemes', content: 'light dark' }),
      h('style', null, darkCss),
    ),
    h(Preview, null, kind.intro.map((p) => (typeof p === 'string' ? p : `{{ .${p.variable} }}`)).join('')),
    h(
      Body,
      {
        className: 'nm-body',
        style: { backgroundColor: c.sand50, fontFamily: fontStack, margin: 0, padding: '24px 12px' },
      },
      h(
        Container,
        {
          className: 'nm-card',
          dir,
          style: {
            backgroundColor: '#ffffff',
            border: `1px solid ${c.sand200}`,
            borderRadius: '12px',
            maxWidth: '560px',
            padding: '32px',
          },
        },
        // The wordmark: the brand's name in its deep green with a saffron rule, as the site's header.
        h(
          Section,
          {
            style: { borderBottom: `3px solid ${c.saffron400}`, marginBottom: '24px', paddingBottom: '12px' },
          },
          h(
            Text,
            {
              className: 'nm-link',
              style: {
                color: c.oasis900,
                fontSize: '24px',
                fontWeight: 700,
                lineHeight: '32px',
                margin: 0,
                textAlign: align,
              },
            },
            copy.brand,
          ),
        ),
        h(
          Heading,
          {
            as: 'h1',
            className: 'nm-text',
            style: {
              color: c.ink,
              fontSize: '22px',
              lineHeight: '30px',
              margin: '0 0 16px',
              textAlign: align,
            },
          },
          kind.heading,
        ),
        h(Text, { className: 'nm-text', style: text }, ...intro),
        ...(kind.details ?? []).map((parts, i) =>
          h(Text, { key: `d${i}`, className: 'nm-text', style: text }, ...inline(parts)),
        ),
        hasLink
          ? h(
              Section,
              { style: { margin: '24px 0', textAlign: align } },
              // The text part lists the link below the button's label instead (data-skip-in-text).
              h(
                Button,
                {
                  ...skipInText,
                  className: 'nm-button',
                  href: '{{ .ConfirmationURL }}',
                  style: {
                    backgroundColor: c.oasis700,
                    borderRadius: '8px',
                    color: '#ffffff',
                    display: 'inline-block',
                    fontSize: '16px',
                    fontWeight: 600,
                    padding: '12px 24px',
                    textDecoration: 'none',
                  },
                },
                kind.action,
              ),
            )
          : null,
        hasLink
          ? h(Text, { className: 'nm-muted', style: { ...muted, margin: '0 0 4px' } }, copy.linkFallback)
          : null,
        hasLink
          ? h(
              Text,
              { dir: 'ltr', style: { ...muted, textAlign: 'left', wordBreak: 'break-all' } },
              h(
                Link,
                {
                  className: 'nm-link',
                  href: '{{ .ConfirmationURL }}',
                  style: { color: c.oasis700, textDecoration: 'underline' },
                },
                '{{ .ConfirmationURL }}',
              ),
            )
          : null,
        kind.code
          ? h(
              Text,
              { className: 'nm-text', style: { ...text, margin: '8px 0 8px' } },
              hasLink ? copy.codeAfterLink : copy.codeOnly,
            )
          : null,
        kind.code
          ? h(
              Text,
              {
                className: 'nm-code',
                dir: 'ltr',
                style: {
                  backgroundColor: c.oasis50,
                  border: `1px solid ${c.sand200}`,
                  borderRadius: '8px',
                  color: c.oasis900,
                  display: 'inline-block',
                  fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace',
                  fontSize: '28px',
                  fontWeight: 700,
                  letterSpacing: '6px',
                  lineHeight: '36px',
                  margin: '0 0 16px',
                  padding: '8px 16px',
                },
              },
              '{{ .Token }}',
            )
          : null,
        // A notice has nothing that expires and is not to be ignored.
        kind.notice
          ? null
          : h(
              Text,
              { className: 'nm-muted', style: muted },
              copy.expiry(opts.minutes, { link: hasLink, code: kind.code }),
            ),
        kind.notice ? null : h(Text, { className: 'nm-muted', style: muted }, copy.ignore),
        h(Hr, { className: 'nm-hr', style: { borderColor: c.sand200, margin: '24px 0 16px' } }),
        h(
          Text,
          { className: 'nm-muted', style: { ...muted, fontSize: '12px', lineHeight: '18px', margin: 0 } },
          `${copy.brand} · ${copy.tagline}`,
        ),
      ),
    ),
  );
}
