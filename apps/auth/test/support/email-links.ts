// Helpers for the flows that go through a mailed link, shared by the capability suites.
import { expect } from 'vitest';
import type { TestServer } from './test-server.ts';

/** Follows an email link without following the 303, and returns the fragment parameters. */
export async function followLink(link: string): Promise<{ location: URL; params: URLSearchParams }> {
  const res = await fetch(link, { redirect: 'manual' });
  expect(res.status).toBe(303);
  const location = new URL(res.headers.get('location') as string);
  return { location, params: new URLSearchParams(location.hash.slice(1)) };
}

/** Signs up through the official client and follows the confirmation link; returns the client. */
export async function signUpConfirmed(t: TestServer, email: string, password = 'correct horse') {
  const sb = t.client();
  const { error } = await sb.auth.signUp({ email, password });
  expect(error).toBeNull();
  const mail = await t.inbox.waitFor(email);
  await followLink(mail.links[0] as string);
  return sb;
}
