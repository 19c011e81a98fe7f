// Plain, dependency-free templates. Every message carries the link and the 6-digit code, so a user
// whose mail scanner pre-opens links can still type the code.

export type MailKind = 'confirmation' | 'recovery' | 'email_change';
export type RenderedMail = { subject: string; text: string; html: string };

const escapeHtml = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch] as string,
  );

const copy: Record<MailKind, { subject: string; intro: string; action: string }> = {
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
};

export function renderMail(kind: MailKind, link: string, code: string, expiresMinutes: number): RenderedMail {
  const c = copy[kind];
  const text = [
    c.intro,
    '',
    `${c.action}: ${link}`,
    '',
    `Or enter this code: ${code}`,
    '',
    `The link and the code expire in ${expiresMinutes} minutes and work once.`,
    'If you did not ask for this, ignore this email.',
  ].join('\n');
  const html = `<!doctype html><html><body style="font-family:system-ui,sans-serif;line-height:1.5">
<p>${escapeHtml(c.intro)}</p>
<p><a href="${escapeHtml(link)}">${escapeHtml(c.action)}</a></p>
<p>Or enter this code: <strong>${code}</strong></p>
<p>The link and the code expire in ${expiresMinutes} minutes and work once. If you did not ask for this, ignore this email.</p>
</body></html>`;
  return { subject: c.subject, text, html };
}
