// Issue 24: every email in the visitor's language (Arabic, right to left, for the Arabic edition),
// the designed HTML with a text part, and operators' GoTrue templates, all through the real service,
// supabase-js and a real SMTP inbox.
import { spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, repoRoot } from '../../../src/config.ts';
import { mailCopy } from '../../../src/core/mail/copy.ts';
import { createMailTemplates, MAIL_KINDS, type MailValues } from '../../../src/core/mail/templates.ts';
import { type ParsedMail, startTestServer, type TestServer, uniqueEmail } from '../../support/test-server.ts';

const ar = mailCopy.ar.kinds;
const en = mailCopy.en.kinds;

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

function expectArabic(mail: ParsedMail, subject: string) {
  expect(mail.subject).toBe(subject);
  expect(mail.html).toMatch(/<html[^>]* dir="rtl"/);
  expect(mail.html).toMatch(/<html[^>]* lang="ar"/);
  // The text part is Arabic too, and its code is in Western digits (the site's convention).
  expect(mail.text).toMatch(/[\u0600-\u06ff]/);
  expect(mail.code).toMatch(/^[0-9]{6}$/);
  expect(mail.html).toContain(mail.code);
}

function expectEnglish(mail: ParsedMail, subject: string) {
  expect(mail.subject).toBe(subject);
  expect(mail.html).toMatch(/<html[^>]* dir="ltr"/);
  expect(mail.html).toMatch(/<html[^>]* lang="en"/);
  expect(mail.text).not.toMatch(/[\u0600-\u06ff]/);
}

/** Signs up from a page (its redirect_to) and follows the confirmation link; returns a signed-in client. */
async function confirmedUser(page: string, email = uniqueEmail('lang')) {
  const sb = t.client();
  expect(
    (await sb.auth.signUp({ email, password: 'correct horse', options: { emailRedirectTo: page } })).error,
  ).toBeNull();
  const mail = await t.inbox.waitFor(email);
  const res = await fetch(mail.links[0] as string, { redirect: 'manual' });
  expect(res.status).toBe(303);
  expect((await sb.auth.signInWithPassword({ email, password: 'correct horse' })).error).toBeNull();
  return { sb, email, confirmation: mail };
}

describe('the language of each email', () => {
  it('confirmation: Arabic from a page under /ar/, and the language is remembered on the user', async () => {
    const email = uniqueEmail('ar-signup');
    const sb = t.client();
    const { data, error } = await sb.auth.signUp({
      email,
      password: 'correct horse',
      options: { emailRedirectTo: `${t.url}/ar/`, data: { name: 'سارة' } },
    });
    expect(error).toBeNull();
    expect(data.user?.user_metadata).toEqual({ name: 'سارة', locale: 'ar' });
    const mail = await t.inbox.waitFor(email);
    expectArabic(mail, ar.confirmation.subject);
    expect(mail.html).toContain(ar.confirmation.action);
    // The link is written out as well as behind the button, and it still confirms.
    const link = mail.links[0] as string;
    expect(mail.html).toContain(`href="${link.replaceAll('&', '&amp;')}"`);
    const res = await fetch(link, { redirect: 'manual' });
    expect(new URL(res.headers.get('location') as string).pathname).toBe('/ar/');
    expect(
      new URLSearchParams(new URL(res.headers.get('location') as string).hash.slice(1)).get('access_token'),
    ).toBeTruthy();
  });

  it('confirmation: Arabic for data.locale without a page, English from an English page', async () => {
    const byData = uniqueEmail('ar-data');
    await t
      .client()
      .auth.signUp({ email: byData, password: 'correct horse', options: { data: { locale: 'ar-SA' } } });
    expectArabic(await t.inbox.waitFor(byData), ar.confirmation.subject);

    const english = uniqueEmail('en-signup');
    const { data } = await t.client().auth.signUp({
      email: english,
      password: 'correct horse',
      options: { emailRedirectTo: `${t.url}/auth`, data: { name: 'Sara' } },
    });
    expect(data.user?.user_metadata).toEqual({ name: 'Sara' }); // nothing added for the default
    const mail = await t.inbox.waitFor(english);
    expectEnglish(mail, en.confirmation.subject);
    expect(mail.text).toContain(en.confirmation.intro[0] as string);
  });

  it('resend: the language of the page that asks, else the remembered one', async () => {
    const email = uniqueEmail('resend');
    await t
      .client()
      .auth.signUp({ email, password: 'correct horse', options: { emailRedirectTo: `${t.url}/ar/` } });
    await t.inbox.waitFor(email);
    expect((await t.client().auth.resend({ type: 'signup', email })).error).toBeNull();
    expectArabic(await t.inbox.waitFor(email), ar.confirmation.subject);
    expect(
      (await t.client().auth.resend({ type: 'signup', email, options: { emailRedirectTo: `${t.url}/` } }))
        .error,
    ).toBeNull();
    expectEnglish(await t.inbox.waitFor(email), en.confirmation.subject);
  });

  it('recovery: Arabic from /ar, from the remembered language without a redirect, English from an English page', async () => {
    const { email } = await confirmedUser(`${t.url}/ar/auth`);
    // Started from the API with no redirect_to: the language remembered at sign-up.
    expect((await t.client().auth.resetPasswordForEmail(email)).error).toBeNull();
    const remembered = await t.inbox.waitFor(email);
    expectArabic(remembered, ar.recovery.subject);
    expect(remembered.html).toContain(ar.recovery.action);
    // The page that asks wins over the remembered language, both ways.
    await t.client().auth.resetPasswordForEmail(email, { redirectTo: `${t.url}/` });
    expectEnglish(await t.inbox.waitFor(email), en.recovery.subject);

    const { email: other } = await confirmedUser(`${t.url}/`);
    await t.client().auth.resetPasswordForEmail(other, { redirectTo: `${t.url}/ar` });
    const arabic = await t.inbox.waitFor(other);
    expectArabic(arabic, ar.recovery.subject);
    // …and its link still signs in (the language is only the message's).
    const res = await fetch(arabic.links[0] as string, { redirect: 'manual' });
    expect(
      new URLSearchParams(new URL(res.headers.get('location') as string).hash.slice(1)).get('type'),
    ).toBe('recovery');
    await t.client().auth.resetPasswordForEmail(other);
    expectEnglish(await t.inbox.waitFor(other), en.recovery.subject);
  });

  it('email change: both addresses get Arabic mail, the current one naming the new address', async () => {
    const { sb, email } = await confirmedUser(`${t.url}/ar/`);
    const next = uniqueEmail('ar-next');
    expect((await sb.auth.updateUser({ email: next })).error).toBeNull();
    const toNew = await t.inbox.waitFor(next);
    const toCurrent = await t.inbox.waitFor(email);
    expectArabic(toNew, ar.email_change.subject);
    expectArabic(toCurrent, ar.email_change_current.subject);
    // The new address sits in the Arabic sentence, isolated left to right.
    expect(toCurrent.html).toContain(`<span dir="ltr" style="unicode-bidi:isolate">${next}</span>`);
    expect(toCurrent.text).toContain(next);

    const { sb: enUser, email: enEmail } = await confirmedUser(`${t.url}/`);
    const enNext = uniqueEmail('en-next');
    expect((await enUser.auth.updateUser({ email: enNext })).error).toBeNull();
    expectEnglish(await t.inbox.waitFor(enNext), en.email_change.subject);
    expectEnglish(await t.inbox.waitFor(enEmail), en.email_change_current.subject);
  });

  it('reauthentication: a code-only mail in the remembered language', async () => {
    const { sb, email } = await confirmedUser(`${t.url}/ar/`);
    expect((await sb.auth.reauthenticate()).error).toBeNull();
    const mail = await t.inbox.waitFor(email);
    expectArabic(mail, ar.reauthentication.subject);
    expect(mail.links).toEqual([]);
    expect(mail.text).toContain(mailCopy.ar.codeOnly);

    const { sb: enUser, email: enEmail } = await confirmedUser(`${t.url}/`);
    await enUser.auth.reauthenticate();
    const english = await t.inbox.waitFor(enEmail);
    expectEnglish(english, en.reauthentication.subject);
    expect(english.code).toMatch(/^\d{6}$/);
  });
});

describe('security notices', () => {
  it('the wrong-two-factor-codes notice comes in the remembered language', async () => {
    const mfa = await startTestServer({ MAILER_AUTOCONFIRM: 'true', RATE_LIMIT_MFA_BACKOFF_AFTER: '2' });
    try {
      const call = async (token: string, path: string, body: unknown) => {
        const res = await mfa.api(path, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}` },
          body: JSON.stringify(body),
        });
        return (await res.json()) as Record<string, unknown> & { id: string; totp: { secret: string } };
      };
      for (const [page, locale] of [
        ['/ar/', 'ar'],
        ['/', 'en'],
      ] as const) {
        const email = uniqueEmail(`notice-${locale}`);
        const { data } = await mfa.client().auth.signUp({
          email,
          password: 'correct horse',
          options: { emailRedirectTo: `${mfa.url}${page}` },
        });
        const token = data.session?.access_token as string;
        const factor = await call(token, '/factors', { factor_type: 'totp', friendly_name: 'app' });
        const now = Math.floor(Date.now() / 1000);
        const challenge = await call(token, `/factors/${factor.id}/challenge`, {});
        await call(token, `/factors/${factor.id}/verify`, {
          challenge_id: challenge.id,
          code: await generate({ secret: factor.totp.secret, epoch: now }),
        });
        const signIn = await mfa.client().auth.signInWithPassword({ email, password: 'correct horse' });
        const aal1 = signIn.data.session?.access_token as string;
        const ch = await call(aal1, `/factors/${factor.id}/challenge`, {});
        for (let i = 0; i < 2; i++)
          await call(aal1, `/factors/${factor.id}/verify`, {
            challenge_id: ch.id,
            code: await generate({ secret: factor.totp.secret, epoch: now + 120 }),
          });
        const notice = await mfa.inbox.waitFor(email);
        const copy = mailCopy[locale].kinds.mfa_verification_failures;
        if (locale === 'ar') {
          expect(notice.subject).toBe(copy.subject);
          expect(notice.html).toMatch(/<html[^>]* dir="rtl"/);
          expect(notice.text).toContain('عدد المحاولات المتتالية: 2.');
        } else {
          expectEnglish(notice, copy.subject);
          expect(notice.text).toContain('2 times in a row');
        }
        expect(notice.links).toEqual([]);
        expect(notice.text).not.toMatch(/\b\d{6}\b/);
      }
    } finally {
      await mfa.close();
    }
  }, 120_000); // starts servers of its own: slow on a loaded machine
});

describe('the templates themselves (every kind, including those no route sends yet)', () => {
  const values = (over: Partial<MailValues> = {}): MailValues => ({
    ConfirmationURL:
      'https://namaa.example/auth/v1/verify?token=abc&type=signup&redirect_to=https%3A%2F%2Fnamaa.example%2Far%2F',
    Token: '123456',
    TokenHash: 'abc',
    SiteURL: 'https://namaa.example',
    RedirectTo: 'https://namaa.example/ar/',
    Email: 'sara@example.com',
    NewEmail: 'new@example.com',
    Data: {},
    ...over,
  });

  it('renders each kind in both languages with its subject, direction, code and link', async () => {
    const templates = await createMailTemplates(loadConfig({ NODE_ENV: 'test' }));
    for (const kind of MAIL_KINDS) {
      for (const locale of ['en', 'ar'] as const) {
        const copy = mailCopy[locale].kinds[kind];
        const link = kind === 'reauthentication' ? '' : values().ConfirmationURL;
        const mail = templates.render(kind, locale, { ...values({ ConfirmationURL: link }), Failures: 4 });
        expect(mail.subject).toBe(copy.subject);
        expect(mail.html).toContain(`dir="${locale === 'ar' ? 'rtl' : 'ltr'}"`);
        expect(mail.html).toContain(copy.heading);
        expect(mail.text).toContain(copy.heading);
        if (copy.code) expect(mail.text).toContain('123456');
        else expect(mail.text).not.toContain('123456');
        if (copy.action) {
          // In the HTML the link is escaped as in an attribute; in the text part it is written as is.
          expect(mail.html).toContain(`href="${link.replaceAll('&', '&amp;')}"`);
          expect(mail.text).toContain(link);
          expect(mail.html).toContain(copy.action);
        } else expect(mail.html).not.toContain('href=');
        expect(mail.html).not.toContain('{{');
        expect(mail.text).not.toContain('{{');
        if (kind === 'mfa_verification_failures') expect(mail.text).toMatch(/\b4\b/);
      }
    }
  });

  it('escapes values in the HTML as Go does and writes them as they are in the text', async () => {
    const templates = await createMailTemplates(loadConfig({ NODE_ENV: 'test' }));
    const mail = templates.render('email_change_current', 'en', values({ NewEmail: '"a+b"<x>@example.com' }));
    expect(mail.html).toContain('&#34;a&#43;b&#34;&lt;x&gt;@example.com');
    expect(mail.html).not.toContain('<x>');
    expect(mail.text).toContain('"a+b"<x>@example.com');
  });

  it('writes minutes with Western digits and the Arabic plural forms', () => {
    const e = mailCopy.ar.expiry;
    expect(e(60, { link: true, code: true })).toContain('خلال 60 دقيقة');
    expect(e(5, { link: false, code: true })).toContain('خلال 5 دقائق');
    expect(e(2, { link: true, code: true })).toContain('خلال دقيقتين');
    expect(e(1, { link: true, code: false })).toContain('خلال دقيقة واحدة');
    expect(mailCopy.en.expiry(1, { link: true, code: true })).toContain('in 1 minute and');
  });
});

describe("operators' GoTrue templates", () => {
  let dir: string;
  let http: Server;
  let httpUrl: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'namaa-mail-'));
    http = createServer((req, res) => {
      if (req.url === '/recovery.html') {
        res.setHeader('content-type', 'text/html');
        // Supabase's documented server-side pattern: the site's own route verifies the token hash.
        res.end(
          '<h2>Reset Password</h2>\n<p>Follow this link to reset the password for your user:</p>\n' +
            '<p><a href="{{ .SiteURL }}/auth/confirm?token_hash={{ .TokenHash }}&type=recovery&next={{ .RedirectTo }}">Reset Password</a></p>',
        );
      } else {
        res.statusCode = 404;
        res.end('not found');
      }
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    httpUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => http.close(resolve));
  });

  it('replace the design and subject, with GoTrue variables, Go escaping and if/else on .Data', async () => {
    const path = join(dir, 'confirm.html');
    await writeFile(
      path,
      [
        '<h2>Confirm your signup</h2>',
        '{{- /* a Supabase template, branching on the language */ -}}',
        '{{ if eq .Data.locale "ar" }}<p dir="rtl">أهلًا {{ .Data.name }}</p>{{ else }}<p>Hello {{ .Data.name }}</p>{{ end }}',
        '<p><a href="{{ .ConfirmationURL }}">Confirm your mail</a></p>',
        '<p>Or enter this code: {{ .Token }} ({{ .Email }}, {{ .SiteURL }})</p>',
      ].join('\n'),
    );
    const custom = await startTestServer({
      MAILER_TEMPLATES_CONFIRMATION: path,
      MAILER_SUBJECTS_CONFIRMATION: 'Welcome to {{ .SiteURL }}, {{ .Data.name }}',
      MAILER_TEMPLATES_RECOVERY: `${httpUrl}/recovery.html`,
    });
    try {
      const email = uniqueEmail('custom');
      await custom.client().auth.signUp({
        email,
        password: 'correct horse',
        options: { data: { name: '<b>Sara</b>' } },
      });
      const mail = await custom.inbox.waitFor(email);
      expect(mail.subject).toBe(`Welcome to ${custom.url}, <b>Sara</b>`);
      expect(mail.html).toContain('<h2>Confirm your signup</h2><p>Hello &lt;b&gt;Sara&lt;/b&gt;</p>');
      expect(mail.html).not.toContain(en.confirmation.action); // the design is replaced
      expect(mail.html).toContain(`(${email}, ${custom.url})`);
      expect(mail.code).toMatch(/^\d{6}$/);
      // The text part is the template's own text, with the link written out.
      expect(mail.text).toContain('Hello <b>Sara</b>');
      const link = mail.links.find((l) => l.includes('/auth/v1/verify')) as string;
      expect(mail.html).toContain(`href="${link.replaceAll('&', '&amp;')}"`);
      expect((await fetch(link, { redirect: 'manual' })).status).toBe(303);

      // The same template in Arabic: the operator's branch on .Data.locale.
      const arEmail = uniqueEmail('custom-ar');
      await custom.client().auth.signUp({
        email: arEmail,
        password: 'correct horse',
        options: { data: { name: 'سارة' }, emailRedirectTo: `${custom.url}/ar/` },
      });
      const arMail = await custom.inbox.waitFor(arEmail);
      expect(arMail.html).toContain('<p dir="rtl">أهلًا سارة</p>');
      expect(arMail.subject).toBe(`Welcome to ${custom.url}, سارة`);

      // A template fetched from a URL, whose token_hash link verifies through POST /verify.
      await custom.client().auth.resetPasswordForEmail(email);
      const reset = await custom.inbox.waitFor(email);
      expect(reset.subject).toBe(en.recovery.subject); // no MAILER_SUBJECTS_RECOVERY: the default subject
      const href = new URL((reset.html.match(/href="([^"]+)"/)?.[1] ?? '').replaceAll('&amp;', '&'));
      expect(href.origin + href.pathname).toBe(`${custom.url}/auth/confirm`);
      const tokenHash = href.searchParams.get('token_hash') as string;
      const verified = await custom.client().auth.verifyOtp({ token_hash: tokenHash, type: 'recovery' });
      expect(verified.error).toBeNull();
      expect(verified.data.session?.user.email).toBe(email);

      // The kinds without an override keep the design.
      const sb = custom.client();
      expect((await sb.auth.signInWithPassword({ email, password: 'correct horse' })).error).toBeNull();
      const next = uniqueEmail('custom-next');
      expect((await sb.auth.updateUser({ email: next })).error).toBeNull();
      expectEnglish(await custom.inbox.waitFor(next), en.email_change.subject);
    } finally {
      await custom.close();
    }
  }, 120_000); // starts servers of its own: slow on a loaded machine

  it("takes the text part from the message's HTML when the template's own text does not parse", async () => {
    // An `if` opened inside an attribute and closed outside it: the template's text alone has a
    // stray {{ end }}, so each message's text comes from its rendered HTML instead.
    const path = join(dir, 'attr-if.html');
    await writeFile(
      path,
      '<p class="{{ if .Token }}with-code">Code {{ .Token }}{{ end }}</p><a href="{{ .ConfirmationURL }}">Sign in</a>',
    );
    const templates = await createMailTemplates(
      loadConfig({ NODE_ENV: 'test', MAILER_TEMPLATES_MAGIC_LINK: path }),
    );
    const mail = templates.render('magic_link', 'en', {
      ConfirmationURL: 'https://namaa.example/auth/v1/verify?token=t&type=magiclink',
      Token: '654321',
      TokenHash: 't',
      SiteURL: 'https://namaa.example',
      RedirectTo: 'https://namaa.example/',
      Email: 'a@example.com',
      NewEmail: '',
      Data: {},
    });
    expect(mail.html).toBe(
      '<p class="with-code">Code 654321</p><a href="https://namaa.example/auth/v1/verify?token=t&amp;type=magiclink">Sign in</a>',
    );
    expect(mail.text).toContain('Code 654321');
    expect(mail.text).toContain('https://namaa.example/auth/v1/verify?token=t&type=magiclink');
    expect(mail.subject).toBe(en.magic_link.subject);
  });

  it('a broken template stops start-up with a message naming the setting', async () => {
    const unclosed = join(dir, 'unclosed.html');
    await writeFile(unclosed, '<p>{{ if .Token }}Code: {{ .Token }}</p>');
    const unknown = join(dir, 'unknown.html');
    await writeFile(unknown, '<p>{{ .ConfirmationUrl }}</p>');
    const cases: [Record<string, string>, RegExp][] = [
      [{ MAILER_TEMPLATES_RECOVERY: join(dir, 'missing.html') }, /MAILER_TEMPLATES_RECOVERY: cannot read/],
      [
        { MAILER_TEMPLATES_MAGIC_LINK: unclosed },
        /MAILER_TEMPLATES_MAGIC_LINK: broken template: \{\{ if \}\} at line 1, column 4 has no \{\{ end \}\}/,
      ],
      [
        { MAILER_TEMPLATES_INVITE: unknown },
        /MAILER_TEMPLATES_INVITE: broken template: unknown variable "\.ConfirmationUrl"/,
      ],
      [
        { MAILER_TEMPLATES_EMAIL_CHANGE: `${httpUrl}/nope.html` },
        /MAILER_TEMPLATES_EMAIL_CHANGE: cannot read .* \(HTTP 404\)/,
      ],
      [
        { MAILER_SUBJECTS_REAUTHENTICATION: 'Code {{ .Token | printf "%s" }}' },
        /MAILER_SUBJECTS_REAUTHENTICATION: broken template: pipes/,
      ],
      [
        { MAILER_SUBJECTS_CONFIRMATION: 'Hello {{ .Email' },
        /MAILER_SUBJECTS_CONFIRMATION: broken template: unclosed action/,
      ],
    ];
    for (const [env, message] of cases) await expect(startTestServer(env)).rejects.toThrow(message);
  }, 120_000); // starts servers of its own: slow on a loaded machine

  it('the process entry prints the setting and exits 1, with no stack trace', async () => {
    const child = spawn(process.execPath, [join(repoRoot, 'apps/auth/src/main.ts')], {
      env: {
        PATH: process.env.PATH ?? '',
        NODE_ENV: 'test',
        PORT: '0',
        DATA_DIR: 'memory://',
        LOG_LEVEL: 'silent',
        MAILER_TEMPLATES_RECOVERY: join(dir, 'missing.html'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const exitCode = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(exitCode).toBe(1);
    expect(stderr).toMatch(/MAILER_TEMPLATES_RECOVERY: cannot read .*missing\.html/);
    expect(stderr).not.toMatch(/\n\s+at /);
  });
});
