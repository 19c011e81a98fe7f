// The site's phone field (issue #26): the Saudi local formats and international ones, typed with
// separators and in Arabic-Indic or Persian digits, become the E.164 number the service takes; what
// is not a mobile number is refused before anything is sent.
import { describe, expect, it } from 'vitest';
import { asciiPhone } from '~/lib/digits.ts';
import { toE164 } from '~/lib/phone-number.ts';

const SAUDI = '+966501234567';

describe('toE164', () => {
  it('takes the Saudi local formats: 05x xxx xxxx and 5x xxx xxxx', () => {
    for (const typed of [
      '0501234567',
      '050 123 4567',
      '050-123-4567',
      '(050) 123 4567',
      '50 123 4567',
      '501234567',
    ])
      expect(toE164(typed), typed).toBe(SAUDI);
  });

  it('takes the international forms: +966, 00966, and the country code with the trunk 0 kept', () => {
    for (const typed of [
      '+966501234567',
      '+966 50 123 4567',
      '+966 (50) 123-4567',
      '00966501234567',
      '00966 50 123 4567',
      '+966 050 123 4567',
    ])
      expect(toE164(typed), typed).toBe(SAUDI);
  });

  it('takes Arabic-Indic and Persian digits, with bidi marks from copied text', () => {
    expect(toE164('٠٥٠ ١٢٣ ٤٥٦٧')).toBe(SAUDI);
    expect(toE164('٠٠٩٦٦٥٠١٢٣٤٥٦٧')).toBe(SAUDI);
    expect(toE164('+٩٦٦ ٥٠ ١٢٣ ٤٥٦٧')).toBe(SAUDI);
    expect(toE164('۰۵۰-۱۲۳-۴۵۶۷')).toBe(SAUDI);
    expect(toE164('\u200F٠٥٠\u200F ١٢٣ ٤٥٦٧\u061C')).toBe(SAUDI);
    expect(toE164('\u202A+966 50 123 4567\u202C')).toBe(SAUDI);
  });

  it('takes other countries’ mobiles typed with their country code', () => {
    expect(toE164('+44 7911 123456')).toBe('+447911123456');
    expect(toE164('00447911123456')).toBe('+447911123456');
    expect(toE164('+971 50 123 4567')).toBe('+971501234567');
    expect(toE164('+1 (415) 555-2671')).toBe('+14155552671');
    expect(toE164('+20 100 123 4567')).toBe('+201001234567');
  });

  it('reads a number without + or 00 as local to the given country', () => {
    expect(toE164('07911 123456', 'GB')).toBe('+447911123456');
    expect(toE164('0501234567', 'AE')).toBe('+971501234567');
  });

  it('refuses what is not a mobile number: too short, too long, landlines, fictional ranges', () => {
    for (const typed of [
      '',
      '   ',
      '050',
      '05012345',
      '050123456789',
      '0096650123456',
      '011 234 5678', // a Riyadh landline: it cannot receive the code
      '+966 11 234 5678',
      '+1 555 555 0100',
      '+999 501234567', // no such country code
    ])
      expect(toE164(typed), typed).toBeUndefined();
  });

  it('refuses letters, a + inside, mixed digit scripts, other scripts’ digits and zero-width characters', () => {
    for (const typed of [
      '050 123 4567 ext 1',
      'call 0501234567',
      '050+1234567',
      '++966501234567',
      '٠٥٠١٢٣۴۵۶۷', // Arabic-Indic and Persian mixed
      '０５０１２３４５６７', // fullwidth
      '०५०१२३४५६७', // Devanagari
      '050\u200B1234567',
      '050/123/4567',
    ])
      expect(toE164(typed), typed).toBeUndefined();
  });
});

describe('asciiPhone', () => {
  it('keeps a leading + and the digits, and drops every separator the service drops', () => {
    expect(asciiPhone(' +966 (50) 123.45-67 ')).toBe('+966501234567');
    expect(asciiPhone('050\u2010123\u2013456\u22127')).toBe('0501234567');
    expect(asciiPhone('050\u00A0123\u202F4567')).toBe('0501234567');
    expect(asciiPhone('+')).toBeUndefined();
  });
});
