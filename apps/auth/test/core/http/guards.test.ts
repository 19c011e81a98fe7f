// The key guards on a real Hono app with the service's real configuration and error rendering:
// which key was presented is recorded on the request, and the admin level lets the SERVICE_ROLE_KEY
// through (admin JWTs are covered end to end by test/features/admin/).
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import type { Deps } from '../../../src/core/deps.ts';
import type { AppEnv } from '../../../src/core/http/context.ts';
import { requireAdmin, requireApiKey } from '../../../src/core/http/guards.ts';
import { AuthError, toErrorResponse } from '../../../src/errors.ts';

const SERVICE_KEY = 'service-role-key-for-guard-tests-0123456789';

function appFor(env: Record<string, string>) {
  const config = loadConfig({ NODE_ENV: 'test', DATA_DIR: 'memory://', ...env });
  const app = new Hono<AppEnv>();
  app.onError((err, c) => (err instanceof AuthError ? toErrorResponse(c, err) : c.text('unexpected', 500)));
  const key = requireApiKey(config);
  app.get('/keyed', key, (c) => c.json({ apiKey: c.get('apiKey') }));
  // Only the key paths are exercised here: no JWT reaches the key store.
  const deps = {
    config,
    keys: { verifyAdmin: () => Promise.reject(new Error('not a JWT')) },
  } as unknown as Deps;
  app.get('/admin', key, requireAdmin(deps), (c) =>
    c.json({ apiKey: c.get('apiKey'), admin: c.get('admin') }),
  );
  return { app, config };
}

const get = (app: Hono<AppEnv>, path: string, apikey?: string) =>
  app.request(path, apikey === undefined ? {} : { headers: { apikey } });

describe('apikey guard', () => {
  it('records which key was presented: anon or service', async () => {
    const { app, config } = appFor({ SERVICE_ROLE_KEY: SERVICE_KEY });
    expect(await (await get(app, '/keyed', config.ANON_KEY)).json()).toEqual({ apiKey: 'anon' });
    expect(await (await get(app, '/keyed', SERVICE_KEY)).json()).toEqual({ apiKey: 'service' });
    // The query form the Supabase gateway also accepts.
    const viaQuery = await app.request(`/keyed?apikey=${encodeURIComponent(SERVICE_KEY)}`);
    expect(await viaQuery.json()).toEqual({ apiKey: 'service' });
  });

  it('refuses a missing key and a wrong one', async () => {
    const { app } = appFor({ SERVICE_ROLE_KEY: SERVICE_KEY });
    const missing = await get(app, '/keyed');
    expect(missing.status).toBe(401);
    expect((await missing.json()).error_code).toBe('no_api_key');
    const wrong = await get(app, '/keyed', `${SERVICE_KEY.slice(0, -1)}x`);
    expect(wrong.status).toBe(401);
    expect((await wrong.json()).error_code).toBe('invalid_api_key');
  });
});

describe('service-role guard', () => {
  it('lets the service-role key through and answers 403 not_admin to the anon key', async () => {
    const { app, config } = appFor({ SERVICE_ROLE_KEY: SERVICE_KEY });
    const service = await get(app, '/admin', SERVICE_KEY);
    expect(service.status).toBe(200);
    expect(await service.json()).toEqual({ apiKey: 'service', admin: { via: 'service_role_key' } });
    const anon = await get(app, '/admin', config.ANON_KEY);
    expect(anon.status).toBe(403);
    expect(await anon.json()).toMatchObject({ error_code: 'not_admin', msg: 'User not allowed' });
    expect((await get(app, '/admin')).status).toBe(401);
  });

  it('lets nobody through when no SERVICE_ROLE_KEY is configured', async () => {
    const { app, config } = appFor({});
    expect((await get(app, '/admin', config.ANON_KEY)).status).toBe(403);
    expect((await get(app, '/admin', SERVICE_KEY)).status).toBe(401);
  });

  it('gives the lesser power when both keys are configured equal', async () => {
    const { app } = appFor({ ANON_KEY: SERVICE_KEY, SERVICE_ROLE_KEY: SERVICE_KEY });
    expect(await (await get(app, '/keyed', SERVICE_KEY)).json()).toEqual({ apiKey: 'anon' });
    expect((await get(app, '/admin', SERVICE_KEY)).status).toBe(403);
  });
});
