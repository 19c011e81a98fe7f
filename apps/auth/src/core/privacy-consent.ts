// PDPL consent: the site's sign-up form says what is collected and links the privacy notice, and
// sends `data.privacy_notice_accepted: true` with supabase-js `signUp({ options: { data } })`. The
// service takes that key OUT of the metadata (user_metadata is the user's to rewrite, a consent
// record is not) and stamps the configured PRIVACY_NOTICE_VERSION and the time on the user's row.
// The version comes from the operator, not the client: a client cannot claim a notice that does not
// exist, and changing the notice is one setting beside the page.

/** The key the client sends in the sign-up's `data`. */
export const CONSENT_KEY = 'privacy_notice_accepted';

export type ConsentRecord = { privacyNoticeVersion: string; privacyNoticeAcceptedAt: Date };

/**
 * Splits the sign-up's data into the metadata to store and the consent to record (undefined when the
 * client did not state acceptance; only the JSON value `true` counts).
 */
export function takeConsent(
  data: Record<string, unknown>,
  version: string,
  now: Date,
): { data: Record<string, unknown>; consent: ConsentRecord | undefined } {
  if (!(CONSENT_KEY in data)) return { data, consent: undefined };
  const { [CONSENT_KEY]: accepted, ...rest } = data;
  return {
    data: rest,
    consent: accepted === true ? { privacyNoticeVersion: version, privacyNoticeAcceptedAt: now } : undefined,
  };
}
