// Every message's subject, HTML and plain text, prepared once at start-up:
//  - the defaults: the react-email design (email-layout.ts) in each language, rendered to HTML and
//    text with GoTrue's template variables where the values go (in a worker: default-designs.ts);
//  - an operator's GoTrue templates (MAILER_TEMPLATES_*, MAILER_SUBJECTS_*), read from a file or URL.
// Both become compiled Go-style templates (go-template.ts); sending a message only fills in the
// values (HTML-escaped as Go's html/template does), so no React render ever runs per request, and a
// broken operator template stops start-up instead of failing at send time.
import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import {
  type Config,
  ConfigError,
  MAIL_TEMPLATE_NAMES,
  type MailTemplateName,
  repoRoot,
} from '../../config.ts';
import type { MailKind } from './copy.ts';
import { designKey, renderDefaultDesigns } from './default-designs.ts';
import { type CompiledTemplate, compileTemplate, escapeHtmlLikeGo, TemplateError } from './go-template.ts';
import { MAIL_LOCALES, type MailLocale } from './locale.ts';
import { headingSelectors, tidyText } from './plain-text.ts';

export type { MailKind } from './copy.ts';
export { MAIL_KINDS } from './copy.ts';
export type RenderedMail = { subject: string; text: string; html: string };

/** GoTrue's template variables, as a Supabase template uses them. */
export type MailValues = {
  /** The link to click (empty for a code-only message). */
  ConfirmationURL: string;
  /** The 6-digit code. */
  Token: string;
  /** What POST /verify takes as `token_hash` (the link's token; empty for a code-only message). */
  TokenHash: string;
  SiteURL: string;
  RedirectTo: string;
  /** The account's address (for an email change: the current one). */
  Email: string;
  /** An email change's new address. */
  NewEmail: string;
  /** The user's user_metadata, with `locale` set to this message's language. */
  Data: Record<string, unknown>;
  /** A security notice's count (mfa_verification_failures); not a GoTrue variable. */
  Failures?: number;
};
const FIELDS = [
  'ConfirmationURL',
  'Token',
  'TokenHash',
  'SiteURL',
  'RedirectTo',
  'Email',
  'NewEmail',
  'Data',
];
const compile = (src: string) => compileTemplate(src, { fields: FIELDS, mapFields: ['Data'] });
/** The built-in designs may also use the notices' own values. */
const compileDefault = (src: string) =>
  compileTemplate(src, { fields: [...FIELDS, 'Failures'], mapFields: ['Data'] });

/**
 * GoTrue's setting suffix for each kind; both halves of an email change use EMAIL_CHANGE, as in
 * GoTrue. Security notices have none (GoTrue has no such notice): they keep the design.
 */
export const TEMPLATE_SETTING: Record<MailKind, MailTemplateName | undefined> = {
  confirmation: 'CONFIRMATION',
  recovery: 'RECOVERY',
  email_change: 'EMAIL_CHANGE',
  email_change_current: 'EMAIL_CHANGE',
  reauthentication: 'REAUTHENTICATION',
  magic_link: 'MAGIC_LINK',
  invite: 'INVITE',
  mfa_verification_failures: undefined,
  mfa_recovery_code_used: undefined,
  account_deleted: undefined,
};

type Prepared = { subject: CompiledTemplate; html: CompiledTemplate; text: CompiledTemplate | 'from-html' };

export type MailTemplates = {
  render(kind: MailKind, locale: MailLocale, values: MailValues): RenderedMail;
};

const textOptions = { selectors: headingSelectors };

/** Reads an operator's template as GoTrue takes it: an http(s) URL, or here also a file path. */
async function readTemplateSource(setting: string, where: string): Promise<string> {
  try {
    if (/^https?:\/\//i.test(where)) {
      const res = await fetch(where, { signal: AbortSignal.timeout(10_000), redirect: 'follow' });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      return await res.text();
    }
    const path = where.startsWith('file://')
      ? new URL(where)
      : isAbsolute(where)
        ? where
        : resolve(repoRoot, where);
    return await readFile(path, 'utf8');
  } catch (err) {
    throw new ConfigError(
      `Invalid configuration:\n  ${setting}: cannot read ${where} (${(err as Error).message})`,
    );
  }
}

function compileSetting(setting: string, src: string): CompiledTemplate {
  try {
    return compile(src);
  } catch (err) {
    if (err instanceof TemplateError)
      throw new ConfigError(`Invalid configuration:\n  ${setting}: broken template: ${err.message}`);
    throw err;
  }
}

/**
 * Prepares every kind in every language. Throws ConfigError naming the setting when an operator's
 * template cannot be read or parsed, or uses a variable GoTrue does not have.
 */
/** The link lifetime the mail copy states, in whole minutes. */
export const linkMinutes = (config: Pick<Config, 'MAILER_OTP_EXP'>) =>
  Math.max(1, Math.round(config.MAILER_OTP_EXP / 60));

export async function createMailTemplates(config: Config): Promise<MailTemplates> {
  const designs = renderDefaultDesigns(linkMinutes(config));
  // html-to-text is only needed for an operator's own templates; without them it never loads.
  const plainText = MAIL_TEMPLATE_NAMES.some((name) => config.mailer.templates[name])
    ? (await import('@react-email/render')).toPlainText
    : undefined;
  const toPlainText = (html: string, options: typeof textOptions) => {
    if (!plainText) throw new Error('html-to-text was not loaded: no operator template is configured');
    return plainText(html, options);
  };
  const overrides = new Map<
    MailTemplateName,
    { html: CompiledTemplate; text: CompiledTemplate | 'from-html' }
  >();
  for (const name of MAIL_TEMPLATE_NAMES) {
    const where = config.mailer.templates[name];
    if (!where) continue;
    const setting = `MAILER_TEMPLATES_${name}`;
    const src = await readTemplateSource(setting, where);
    const html = compileSetting(setting, src);
    // The text part is the template's own text, taken out of its HTML once here. When an action
    // sat inside an attribute and the text alone no longer parses (an `if` opened in a tag and
    // closed outside it), each message's text is taken from its rendered HTML instead.
    let text: CompiledTemplate | 'from-html';
    try {
      text = compile(tidyText(toPlainText(src, textOptions)));
    } catch {
      text = 'from-html';
    }
    overrides.set(name, { html, text });
  }
  const subjects = new Map<MailTemplateName, CompiledTemplate>();
  for (const name of MAIL_TEMPLATE_NAMES) {
    const subject = config.mailer.subjects[name];
    if (subject) subjects.set(name, compileSetting(`MAILER_SUBJECTS_${name}`, subject));
  }

  const prepared = new Map<string, Prepared>();
  const defaultSources = await designs;
  for (const locale of MAIL_LOCALES)
    for (const kind of Object.keys(TEMPLATE_SETTING) as MailKind[]) {
      const name = TEMPLATE_SETTING[kind];
      const defaults = defaultSources.get(designKey(kind, locale));
      if (!defaults) throw new Error(`no built-in design for ${kind}/${locale}`);
      const override = name ? overrides.get(name) : undefined;
      prepared.set(`${kind}:${locale}`, {
        subject: (name ? subjects.get(name) : undefined) ?? compileDefault(defaults.subject),
        html: override?.html ?? compileDefault(defaults.html),
        text: override?.text ?? compileDefault(defaults.text),
      });
    }

  return {
    render(kind, locale, values) {
      const p = prepared.get(`${kind}:${locale}`);
      if (!p) throw new Error(`no mail template for ${kind}/${locale}`);
      const v = values as unknown as Record<string, unknown>;
      const html = p.html.execute(v, escapeHtmlLikeGo);
      const text =
        p.text === 'from-html' ? tidyText(toPlainText(html, textOptions)) : p.text.execute(v, (s) => s);
      // A subject is one header line: no line breaks, whatever the metadata holds.
      const subject = p.subject
        .execute(v, (s) => s)
        .replace(/\s+/g, ' ')
        .trim();
      return { subject, text, html };
    },
  };
}
