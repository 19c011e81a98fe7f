// Digits as people in our market type them. An Arabic phone keyboard types Arabic-Indic digits
// (٠–٩, U+0660–0669) and a Persian/Urdu one Extended Arabic-Indic digits (۰–۹, U+06F0–06F9) into a
// code or phone field; GoTrue accepts only ASCII. Every code and phone number the API takes goes
// through normalizeDigits in its zod schema (core/http/schemas.ts: codeField, phoneField), so what is
// validated, hashed, compared, stored and looked up is always ASCII.
//
// Decisions (README, "Arabic-Indic digits"):
// - Only these two scripts are mapped. Fullwidth (０–９), Devanagari and the other Unicode digits are
//   left as they are, so the ASCII-only validation after us refuses them: no keyboard of our market
//   types them, and accepting all of Unicode's Nd would widen what a "code" is for no one.
// - A value mixing Arabic-Indic and Persian digits is left as it is (refused the same way): a real
//   keyboard types one of them, and Unicode's UTS #39 counts such mixed-number strings as spoofing
//   material. ASCII beside either is fine ("+966 ٥٠…": the "+" and the country code from a Latin layout).
// - Bidirectional marks are dropped: LRM/RLM (U+200E/F), the Arabic letter mark (U+061C) and the
//   embedding/override/isolate controls (U+202A–202E, U+2066–2069). Copying a number out of Arabic
//   text or a phone's contacts brings them along, and they are invisible. Zero-width spaces, joiners
//   and the BOM are not dropped: nothing legitimately puts them inside a number, so they are refused.
// - Phone numbers also lose spaces (with the no-break ones), dashes (ASCII and Unicode), dots and
//   parentheses. What is left must still be E.164 (core/phone.ts): "٠٥٠…" (a local number) is not.

const ARABIC_INDIC = /[\u0660-\u0669]/;
const PERSIAN = /[\u06F0-\u06F9]/;
const EXTENDED_DIGIT = /[\u0660-\u0669\u06F0-\u06F9]/g;
const BIDI_MARKS = /[\u200E\u200F\u061C\u202A-\u202E\u2066-\u2069]/g;
const PHONE_SEPARATORS = /[ \u00A0\u2007\u202F.()\-\u2010-\u2015\u2212]/g;

/**
 * The one normalization of typed digits: Arabic-Indic and Persian digits to ASCII, bidi marks
 * dropped, and for a phone number its separators too. Anything else is left for validation to refuse.
 */
export function normalizeDigits(value: string, kind: 'code' | 'phone' = 'code'): string {
  const unmarked = value.replace(BIDI_MARKS, '');
  const mixed = ARABIC_INDIC.test(unmarked) && PERSIAN.test(unmarked);
  const ascii = mixed
    ? unmarked
    : unmarked.replace(EXTENDED_DIGIT, (d) => String((d.codePointAt(0) as number) & 0x0f));
  return kind === 'phone' ? ascii.replace(PHONE_SEPARATORS, '') : ascii;
}
