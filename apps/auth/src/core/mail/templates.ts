// Plain, dependency-free templates. Every message with a link also carries the 6-digit code, so a
// user whose mail scanner pre-opens links can still type the code (a reauthentication nonce is a
// code only).

export type MailKind =
  | 'confirmation'
  | 'recovery'
  | 'email_change'
  | 'email_change_current'
  | 'reauthentication'
  | 'invite';
export type RenderedMail = { subject: string; text: string; html: string };

const escapeHtml = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch] as string,
  );

/** What a message may mention besides its link and code. */
export type MailContext = { newEmail?: string | undefined };

const copy: Record<
  MailKind,
  { subject: string; intro: string | ((ctx: MailContext) => string); action: string }
> = {
  confirmation: {
    subject: 'Confirm your Namaa account',
    intro: 'Thanks for signing up. Confirm your email address to finish creating your account.',
    action: 'Confirm my email',
  },
  recovery: {
    subject: 'Reset your Namaa password',
    intro: 'Someone (hopefully you) asked to reset the password of your account.',
    action: 'Reset my password',
  },
  email_change: {
    subject: 'Confirm your new email address',
    intro: 'Confirm this address to make it the new email of your Namaa account.',
    action: 'Confirm my new email',
  },
  // Secure email change: the current address must agree too, and learns of the request either way.
  email_change_current: {
    subject: 'Confirm the change of your Namaa email address',
    intro: (ctx) =>
      `Someone (hopefully you) asked to change the email address of your Namaa account to ${ctx.newEmail ?? 'a new address'}. ` +
      'The change happens only after this address and the new one both confirm.',
    action: 'Confirm the change',
  },
  // POST /invite (admin): the account exists; the link confirms the address and signs the person in.
  invite: {
    subject: 'You have been invited to Namaa',
    intro: 'You have been invited to create an account on Namaa. Accept the invitation to sign in.',
    action: 'Accept the invitation',
  },
  // GET /reauthenticate: a code only (the nonce of a password change), no link.
  reauthentication: {
    subject: 'Your Namaa confirmation code',
    intro:
      'Someone (hopefully you) is changing the password of your Namaa account and must confirm it is you.',
    action: 'Confirm',
  },
};

export function renderMail(
  kind: MailKind,
  link: string | undefined,
  code: string,
  expiresMinutes: number,
  ctx: MailContext = {},
): RenderedMail {
  const c = copy[kind];
  const intro = typeof c.intro === 'function' ? c.intro(ctx) : c.intro;
  const expiry = link
    ? `The link and the code expire in ${expiresMinutes} minutes and work once.`
    : `The code expires in ${expiresMinutes} minutes and works once.`;
  const codeLine = link ? 'Or enter this code' : 'Enter this code';
  const text = [
    intro,
    '',
    ...(link ? [`${c.action}: ${link}`, ''] : []),
    `${codeLine}: ${code}`,
    '',
    expiry,
    'If you did not ask for this, ignore this email.',
  ].join('\n');
  const html = `<!doctype html><html><body style="font-family:system-ui,sans-serif;line-height:1.5">
<p>${escapeHtml(intro)}</p>
${link ? `<p><a href="${escapeHtml(link)}">${escapeHtml(c.action)}</a></p>\n` : ''}<p>${codeLine}: <strong>${code}</strong></p>
<p>${expiry} If you did not ask for this, ignore this email.</p>
</body></html>`;
  return { subject: c.subject, text, html };
}

/** Security notices: mail that tells the owner something happened, with no link or code in it. */
export type NoticeKind = 'mfa_verification_failures';

export function renderNotice(kind: NoticeKind, ctx: { failures: number }): RenderedMail {
  const notices: Record<NoticeKind, { subject: string; lines: string[] }> = {
    mfa_verification_failures: {
      subject: 'Failed sign-in attempts on your Namaa account',
      lines: [
        `Someone entered a wrong two-factor code for your Namaa account ${ctx.failures} times in a row.`,
        'Your second factor stopped them, and further attempts are now slowed down.',
        'A two-factor code is asked for only after the right password: if this was not you, change your password now.',
      ],
    },
  };
  const n = notices[kind];
  return {
    subject: n.subject,
    text: n.lines.join('\n\n'),
    html: `<!doctype html><html><body style="font-family:system-ui,sans-serif;line-height:1.5">
${n.lines.map((l) => `<p>${escapeHtml(l)}</p>`).join('\n')}
</body></html>`,
  };
}
