// Codes typed on an Arabic or Persian keyboard arrive as ٠–٩ (U+0660–0669) or ۰–۹ (U+06F0–06F9).
// The site sends ASCII digits, by the same rules as the service's core/digits.ts (which would accept
// the typed form anyway): bidi marks dropped, a value mixing the two scripts left as typed (refused),
// other scripts' digits (fullwidth, Devanagari…) left as typed (refused by the six-digit check).

const ARABIC_INDIC = /[\u0660-\u0669]/;
const PERSIAN = /[\u06F0-\u06F9]/;
const EXTENDED_DIGIT = /[\u0660-\u0669\u06F0-\u06F9]/g;
const BIDI_MARKS = /[\u200E\u200F\u061C\u202A-\u202E\u2066-\u2069]/g;

/** ASCII digits for Arabic-Indic and Persian ones; bidi marks and white space dropped. */
export function asciiDigits(value: string): string {
  const bare = value.replace(BIDI_MARKS, '').replace(/\s/g, '');
  if (ARABIC_INDIC.test(bare) && PERSIAN.test(bare)) return bare;
  return bare.replace(EXTENDED_DIGIT, (d) => String((d.codePointAt(0) as number) & 0x0f));
}

/** The six digits of a typed one-time code, or undefined when it is not six digits. */
export function sixDigitCode(typed: string): string | undefined {
  const code = asciiDigits(typed);
  return /^\d{6}$/.test(code) ? code : undefined;
}

/** The code field's `pattern`: ASCII, Arabic-Indic and Persian digits, so the browser never blocks them. */
export const CODE_PATTERN = '[0-9\\u0660-\\u0669\\u06F0-\\u06F9 ]*';

// The separators people type or paste inside a phone number (the service's core/digits.ts drops the
// same): dots, parentheses and dashes, ASCII and Unicode (hyphen to horizontal bar, minus sign).
const PHONE_SEPARATORS = /[.()\-\u2010-\u2015\u2212]/g;

/**
 * A typed phone number reduced to an optional leading "+" and ASCII digits (Arabic-Indic and
 * Persian digits mapped, bidi marks, white space and separators dropped), or undefined when anything
 * else is left: letters, a "+" inside, mixed digit scripts, other scripts' digits, zero-width spaces.
 */
export function asciiPhone(typed: string): string | undefined {
  const bare = asciiDigits(typed).replace(PHONE_SEPARATORS, '');
  return /^\+?\d+$/.test(bare) ? bare : undefined;
}
