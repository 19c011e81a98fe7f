import type { BrowserContext, Page } from 'playwright-core';

/**
 * Gives the page a CDP virtual authenticator: a platform authenticator with resident keys (passkeys)
 * and user verification, which answers every WebAuthn ceremony at once (presence simulated).
 */
export async function addVirtualAuthenticator(context: BrowserContext, page: Page): Promise<void> {
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
}
