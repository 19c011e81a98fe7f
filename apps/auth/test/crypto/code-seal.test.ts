// crypto/code-seal.ts: a secret sealed under a one-time code opens with that code and context only.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { openWithCode, sealWithCode } from '../../src/crypto/code-seal.ts';

describe('sealWithCode / openWithCode', () => {
  it('opens with the same code and context, and with nothing else', () => {
    const code = randomUUID();
    const secret = JSON.stringify({ provider_token: 'ya29.live-token', provider_refresh_token: '1//r' });
    const sealed = sealWithCode(secret, code, 'flow_state.provider_tokens');
    expect(sealed.startsWith('v1.')).toBe(true);
    expect(sealed).not.toContain('live-token');
    expect(openWithCode(sealed, code, 'flow_state.provider_tokens')).toBe(secret);
    // A fresh IV each time: the same secret never seals to the same text.
    expect(sealWithCode(secret, code, 'flow_state.provider_tokens')).not.toBe(sealed);

    expect(openWithCode(sealed, randomUUID(), 'flow_state.provider_tokens')).toBeUndefined();
    expect(openWithCode(sealed, code, 'another purpose')).toBeUndefined();
    const bytes = Buffer.from(sealed.slice(3), 'base64url');
    bytes[20] = (bytes[20] as number) ^ 1;
    expect(
      openWithCode(`v1.${bytes.toString('base64url')}`, code, 'flow_state.provider_tokens'),
    ).toBeUndefined();
    expect(openWithCode('v1.short', code, 'flow_state.provider_tokens')).toBeUndefined();
    expect(openWithCode('plain text', code, 'flow_state.provider_tokens')).toBeUndefined();
  });
});
