// The API's routing: Hono's RegExpRouter serves it (one compiled match per request; the TrieRouter it
// falls back to when a route set cannot be ordered costs ~25 µs more per request on the refresh hot
// path), and the 404 answers of unknown methods and paths keep their guards: a declared path asked
// with another method behind the strictest guards its endpoints run, any other path behind the key
// check, the public prefixes unkeyed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpApp } from '../../../src/app.ts';
import { startTestServer, type TestServer } from '../../support/test-server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
}, 120_000);
afterAll(async () => {
  await t?.close();
});

type Answer = { status: number; code: unknown };

async function ask(
  app: ReturnType<typeof createHttpApp>,
  method: string,
  path: string,
  apikey?: string,
): Promise<Answer> {
  const res = await app.request(path, { method, headers: apikey ? { apikey } : {} });
  const body = (await res.json().catch(() => ({}))) as { error_code?: unknown };
  return { status: res.status, code: body.error_code };
}

describe.each([
  ['at /auth/v1', '/auth/v1', {}],
  ['at the root (API_PATH=/)', '', { API_PATH: '' }],
])('the API %s', (_name, base, configOverrides) => {
  const app = () =>
    createHttpApp({ ...t.server.deps, config: { ...t.server.deps.config, ...configOverrides } });

  it('is routed by the RegExpRouter', async () => {
    const a = app();
    expect((await a.request(`${base}/health`)).status).toBe(200);
    // SmartRouter names the router it settled on at the first match.
    expect(a.router.name).toBe('SmartRouter + RegExpRouter');
  });

  it('answers another method of a declared path behind that path’s strictest guards, then 404', async () => {
    const a = app();
    // /user is signed-in only: without a key the key check refuses, with one the bearer check.
    expect(await ask(a, 'PATCH', `${base}/user`)).toEqual({ status: 401, code: 'no_api_key' });
    expect(await ask(a, 'PATCH', `${base}/user`, t.anonKey)).toEqual({
      status: 401,
      code: 'no_authorization',
    });
    // A static path beside a parameter sibling (the pair that once cost the RegExpRouter).
    expect(await ask(a, 'PUT', `${base}/passkeys/registration/options`, t.anonKey)).toMatchObject({
      status: 401,
    });
    // An admin path asks for an admin credential: the anon key is not one.
    expect((await ask(a, 'PATCH', `${base}/admin/users`, t.anonKey)).status).toBe(403);
    // /settings is public for GET; another method still needs the key, then is not found.
    expect(await ask(a, 'POST', `${base}/settings`)).toEqual({ status: 401, code: 'no_api_key' });
    expect(await ask(a, 'POST', `${base}/settings`, t.anonKey)).toEqual({ status: 404, code: 'not_found' });
  });

  it('answers unknown paths 404 after the key check, and the public prefixes without a key', async () => {
    const a = app();
    expect(await ask(a, 'GET', `${base}/no-such-route`)).toEqual({ status: 401, code: 'no_api_key' });
    expect(await ask(a, 'GET', `${base}/no-such-route`, t.anonKey)).toEqual({
      status: 404,
      code: 'not_found',
    });
    expect(await ask(a, 'GET', `${base}/.well-known/no-such-document`)).toEqual({
      status: 404,
      code: 'not_found',
    });
  });
});
