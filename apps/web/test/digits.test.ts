// The site's code fields (issue #26): what an Arabic or Persian keyboard types becomes the six ASCII
// digits the API is sent; other scripts and mixtures stay refused.
import { describe, expect, it } from 'vitest';
import { asciiDigits, CODE_PATTERN, sixDigitCode } from '~/lib/digits.ts';

describe('sixDigitCode', () => {
  it('takes Arabic-Indic, Persian and ASCII digits, with spaces and bidi marks', () => {
    expect(sixDigitCode('١٢٣٤٥٦')).toBe('123456');
    expect(sixDigitCode('۱۲۳ ۴۵۶')).toBe('123456');
    expect(sixDigitCode('\u200F٠٩٨٧٦٥\u061C')).toBe('098765');
    expect(sixDigitCode(' 123 456 ')).toBe('123456');
  });

  it('refuses mixed Arabic-Indic and Persian digits, other scripts, zero-width characters and wrong lengths', () => {
    expect(sixDigitCode('١٢٣۴۵۶')).toBeUndefined();
    expect(sixDigitCode('１２３４５６')).toBeUndefined(); // fullwidth
    expect(sixDigitCode('१२३४५६')).toBeUndefined(); // Devanagari
    expect(sixDigitCode('١٢٣\u200B٤٥٦')).toBeUndefined();
    expect(sixDigitCode('١٢٣٤٥')).toBeUndefined();
    expect(sixDigitCode('١٢٣٤٥٦٧')).toBeUndefined();
  });

  it('leaves ASCII beside one extended script as it maps it', () => {
    expect(asciiDigits('12٣٤٥٦')).toBe('123456');
  });

  it('the field pattern lets every accepted digit through', () => {
    const pattern = new RegExp(`^(?:${CODE_PATTERN})$`, 'v');
    for (const typed of ['123456', '١٢٣٤٥٦', '۱۲۳۴۵۶', '123 456'])
      expect(pattern.test(typed), typed).toBe(true);
    expect(pattern.test('12a456')).toBe(false);
  });
});
