// Renders every built-in design (react-email) into template sources. Loaded by default-designs.ts
// only when a server prepares its templates.
import { render } from '@react-email/render';
import { MAIL_KINDS, mailCopy } from './copy.ts';
import type { TemplateSources } from './default-designs.ts';
import { emailElement } from './email-layout.ts';
import { MAIL_LOCALES } from './locale.ts';
import { headingSelectors, tidyText } from './plain-text.ts';

// The designed text part writes the link out itself (and skips the button), so hrefs are not
// repeated.
const textOptions = {
  selectors: [...headingSelectors, { selector: 'a', options: { ignoreHref: true } }],
};

/** Every kind in every language, as template sources. */
export async function renderDesigns(minutes: number): Promise<Array<[string, TemplateSources]>> {
  return Promise.all(
    MAIL_LOCALES.flatMap((locale) =>
      MAIL_KINDS.map(async (kind): Promise<[string, TemplateSources]> => {
        const copy = mailCopy[locale];
        const element = emailElement({ locale, copy, kind: copy.kinds[kind], minutes });
        const [html, text] = await Promise.all([
          render(element),
          render(element, { plainText: true, htmlToTextOptions: textOptions }),
        ]);
        return [`${kind}:${locale}`, { subject: copy.kinds[kind].subject, html, text: tidyText(text) }];
      }),
    ),
  );
}
