// The endpoint declarations (core/http/define-endpoint.ts) against what is actually served: every
// route the app answers is in the OpenAPI document and the reverse, and each access level's guards
// answer as declared, checked over every declared endpoint of a real running service.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiEndpoints, createAuthApi } from '../../../src/app.ts';
import { honoPath } from '../../../src/core/http/define-endpoint.ts';
import { startTestServer, type TestServer } from '../../support/test-server.ts';

let t: TestServer;
beforeAll(async () => {
  // No SMTP_URL: the development mailbox is served too (hidden from the document, see below).
  t = await startTestServer({ SMTP_URL: '' });
});
afterAll(async () => {
  await t?.close();
});

type Parameter = { name: string; in: string; schema: { enum?: string[] } };
type Operation = { summary: string; parameters?: Parameter[] };

/** A concrete request path for a declared one (`/factors/{factorId}` → a well-formed uuid). */
const concrete = (path: string) => path.replaceAll(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000');

describe('OpenAPI document', () => {
  it('documents every served route, and serves every documented one', async () => {
    const api = createAuthApi(t.server.deps);
    const served = new Set(
      api.routes
        // `ALL` entries are middleware (use) and the unknown-path fallback; wildcard GETs are the
        // public prefixes' 404 fallbacks (app.ts); /openapi.json is the document itself.
        .filter((r) => r.method !== 'ALL' && !r.path.includes('*') && r.path !== '/openapi.json')
        .map((r) => `${r.method} ${r.path}`),
    );
    // An endpoint routed through its parameter sibling's pattern (`routeAs`) is served at its own path.
    const all = apiEndpoints(t.server.deps);
    const own = new Set(
      all.filter((x) => !x.routeAs).map((x) => `${x.method.toUpperCase()} ${honoPath(x.path)}`),
    );
    for (const e of all.filter((x) => x.routeAs)) {
      const through = `${e.method.toUpperCase()} ${honoPath(e.routeAs?.path as string)}`;
      if (!own.has(through)) served.delete(through);
      served.add(`${e.method.toUpperCase()} ${honoPath(e.path)}`);
    }
    const hidden = apiEndpoints(t.server.deps).filter((e) => e.hidden);
    // Only the development mailbox may be left out (a tool, absent in production).
    expect(hidden.length).toBeGreaterThan(0);
    for (const e of hidden) {
      expect(e.path.startsWith('/_dev/')).toBe(true);
      served.delete(`${e.method.toUpperCase()} ${honoPath(e.path)}`);
    }

    const doc = await (await fetch(`${t.url}/auth/v1/openapi.json`)).json();
    const documented = new Set<string>();
    for (const [path, operations] of Object.entries(doc.paths as Record<string, object>))
      for (const method of Object.keys(operations))
        documented.add(`${method.toUpperCase()} ${honoPath(path)}`);

    expect([...served].sort()).toEqual([...documented].sort());
    // The drift this replaced: served, once undocumented.
    expect(documented).toContain('GET /.well-known/openid-configuration');
  });

  it('documents a path parameter for every templated path, and the shared response schemas', async () => {
    const doc = await (await fetch(`${t.url}/auth/v1/openapi.json`)).json();
    for (const [path, operations] of Object.entries(doc.paths as Record<string, Record<string, Operation>>))
      for (const op of Object.values(operations)) {
        const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
        const params = (op.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name);
        expect(params.sort()).toEqual(names.sort());
      }
    expect(Object.keys(doc.components.schemas)).toEqual(
      expect.arrayContaining(['User', 'Session', 'Factor', 'Identity']),
    );
    const sessionRef = { $ref: '#/components/schemas/Session' };
    expect(doc.paths['/token'].post.responses['200'].content['application/json'].schema).toEqual(sessionRef);
    expect(
      doc.paths['/factors/{factorId}/verify'].post.responses['200'].content['application/json'].schema,
    ).toEqual(sessionRef);
    expect(doc.paths['/user'].get.responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/User',
    });
  });

  it('lists the grants the token endpoint serves, in its summary and query', async () => {
    const doc = await (await fetch(`${t.url}/auth/v1/openapi.json`)).json();
    const token: Operation = doc.paths['/token'].post;
    expect(token.summary).toContain('pkce (auth_code, code_verifier)');
    const grant = token.parameters?.find((p) => p.name === 'grant_type');
    expect(grant?.schema.enum).toEqual(['password', 'refresh_token', 'pkce', 'id_token', 'web3']);
  });
});

describe('guards, for every declared endpoint', () => {
  it('public endpoints answer without a key; every other endpoint answers 401 no_api_key', async () => {
    const endpoints = apiEndpoints(t.server.deps);
    expect(endpoints.map((e) => e.access)).toEqual(expect.arrayContaining(['public', 'apikey', 'user']));
    for (const e of endpoints) {
      const res = await fetch(`${t.url}/auth/v1${concrete(e.path)}`, {
        method: e.method.toUpperCase(),
        redirect: 'manual',
        ...(e.method === 'get' ? {} : { headers: { 'content-type': 'application/json' }, body: '{}' }),
      });
      const where = `${e.method} ${e.path}`;
      const text = await res.text();
      if (e.access === 'public' || e.access === 'form') expect(res.status, where).not.toBe(401);
      else {
        expect(res.status, where).toBe(401);
        expect(JSON.parse(text).error_code, where).toBe('no_api_key');
      }
    }
  });

  it("a signed-in user's endpoints answer 401 no_authorization to a key without a bearer token", async () => {
    const userEndpoints = apiEndpoints(t.server.deps).filter((e) => e.access === 'user');
    expect(userEndpoints.length).toBeGreaterThanOrEqual(7);
    for (const e of userEndpoints) {
      const res = await t.api(concrete(e.path), {
        method: e.method.toUpperCase(),
        ...(e.method === 'get' ? {} : { body: '{}' }),
      });
      expect(res.status, `${e.method} ${e.path}`).toBe(401);
      expect((await res.json()).error_code).toBe('no_authorization');
    }
  });

  it('checks the key before reading the body, and reads the body before the bearer token', async () => {
    const badJson = { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{' };
    const noKey = await fetch(`${t.url}/auth/v1/user`, badJson);
    expect((await noKey.json()).error_code).toBe('no_api_key');
    const keyed = await t.api('/user', badJson);
    expect((await keyed.json()).error_code).toBe('bad_json');
  });

  it('unknown paths: 404 after the key check, and without one under the public prefixes', async () => {
    const unknown = await fetch(`${t.url}/auth/v1/definitely-not-here`);
    expect((await unknown.json()).error_code).toBe('no_api_key');
    expect((await (await t.api('/definitely-not-here')).json()).error_code).toBe('not_found');
    for (const path of ['/.well-known/nothing', '/_dev/nothing']) {
      const res = await fetch(`${t.url}/auth/v1${path}`);
      expect(res.status, path).toBe(404);
      expect((await res.json()).error_code).toBe('not_found');
    }
    // POST is not public under those prefixes.
    const post = await fetch(`${t.url}/auth/v1/.well-known/jwks.json`, { method: 'POST' });
    expect((await post.json()).error_code).toBe('no_api_key');
  });

  it("a declared path asked with another method: 404 behind its endpoints' strictest guards", async () => {
    const cases: Array<[method: string, path: string, keyed: boolean, code: string]> = [
      ['POST', '/health', false, 'no_api_key'],
      ['PUT', '/verify', false, 'no_api_key'],
      ['DELETE', '/user', false, 'no_api_key'],
      ['DELETE', '/user', true, 'no_authorization'],
      ['GET', '/logout', true, 'no_authorization'],
      ['GET', '/factors/00000000-0000-4000-8000-000000000000', true, 'no_authorization'],
      ['PUT', '/signup', true, 'not_found'],
      ['POST', '/health', true, 'not_found'],
    ];
    for (const [method, path, keyed, code] of cases) {
      const res = keyed ? await t.api(path, { method }) : await fetch(`${t.url}/auth/v1${path}`, { method });
      expect((await res.json()).error_code, `${method} ${path}${keyed ? ' (keyed)' : ''}`).toBe(code);
    }
  });
});
