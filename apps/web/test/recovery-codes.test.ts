import { describe, expect, it } from 'vitest';
import { formatRecoveryCode, looksLikeRecoveryCode } from '~/lib/recovery-codes.ts';

describe('recovery codes on the page', () => {
  it('shows a code in groups of four', () => {
    expect(formatRecoveryCode('2h8kqw3m7xt49rpn')).toBe('2h8k-qw3m-7xt4-9rpn');
  });

  it('takes a typed code with spaces, dashes or capitals, and refuses what cannot be one', () => {
    expect(looksLikeRecoveryCode('2h8k-qw3m-7xt4-9rpn')).toBe(true);
    expect(looksLikeRecoveryCode(' 2H8K QW3M 7XT4 9RPN ')).toBe(true);
    expect(looksLikeRecoveryCode('123456')).toBe(false);
    expect(looksLikeRecoveryCode('2h8k-qw3m-7xt4-9rpn-x')).toBe(false);
    expect(looksLikeRecoveryCode('2h8k_qw3m_7xt4_9rpn')).toBe(false);
  });
});
