// core/digits.ts, the one normalization of typed codes and phone numbers (issue #26).
import { describe, expect, it } from 'vitest';
import { normalizeDigits } from '../../src/core/digits.ts';
import { parsePhone } from '../../src/core/phone.ts';

describe('normalizeDigits', () => {
  it('maps Arabic-Indic and Persian digits to ASCII and drops bidi marks', () => {
    expect(normalizeDigits('٠١٢٣٤٥٦٧٨٩')).toBe('0123456789');
    expect(normalizeDigits('۰۱۲۳۴۵۶۷۸۹')).toBe('0123456789');
    expect(normalizeDigits('\u200F١٢٣\u061C٤٥٦\u202C\u2066')).toBe('123456');
    expect(normalizeDigits('12٣٤٥٦')).toBe('123456');
  });

  it('leaves what it must not accept for validation to refuse', () => {
    expect(normalizeDigits('١٢٣۴۵۶')).toBe('١٢٣۴۵۶'); // two extended scripts mixed
    expect(normalizeDigits('１２３')).toBe('１２３'); // fullwidth
    expect(normalizeDigits('१२३')).toBe('१२३'); // Devanagari
    expect(normalizeDigits('1\u200B2\u200D3\uFEFF')).toBe('1\u200B2\u200D3\uFEFF'); // zero-width
    expect(normalizeDigits('12 34-56')).toBe('12 34-56'); // a code keeps its separators
  });

  it("drops a phone number's spaces, dashes, dots and parentheses", () => {
    expect(normalizeDigits('+٩٦٦ (٥٠) ١٢٣-٤٥٦٧', 'phone')).toBe('+966501234567');
    expect(normalizeDigits('+966\u00A050\u2013123\u2212456.7', 'phone')).toBe('+966501234567');
  });
});

describe('parsePhone', () => {
  it('keeps E.164: the country code is required, a local or 00-prefixed number is refused', () => {
    expect(parsePhone('+٩٦٦ ٥٠ ١٢٣ ٤٥٦٧')).toBe('966501234567');
    expect(parsePhone('۹۶۶۵۰۱۲۳۴۵۶۷')).toBe('966501234567');
    for (const local of ['٠٥٠ ١٢٣ ٤٥٦٧', '00966501234567', '+966 50 ١٢٣ ۴۵۶۷', '+966\u200B501234567'])
      expect(() => parsePhone(local), local).toThrow('E.164');
  });
});
