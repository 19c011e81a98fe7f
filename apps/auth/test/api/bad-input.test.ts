// Hostile and malformed input for every endpoint: always a 4xx in GoTrue's shape, never a 5xx or a
// stack trace.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { users } from '../../src/db/schema.ts';
import { startTestServer, type TestServer, uniqueEmail } from '../support/test-server.ts';

const SERVICE_KEY = 'sb_secret_bad_input_test_key_0123456789abcdef';
let t: TestServer;
let accessToken: string;
beforeAll(async () => {
  t = await startTestServer({ MAILER_AUTOCONFIRM: 'true', SERVICE_ROLE_KEY: SERVICE_KEY });
  const { data } = await t.client().auth.signUp({ email: uniqueEmail('bad'), password: 'secret-pass' });
  accessToken = data.session!.access_token;
});
afterAll(async () => {
  await t?.close();
});

/** `admin`: called with the service-role key (as apikey and bearer), as supabase-js's admin client does. */
const endpoints: Array<{ method: string; path: string; auth?: boolean; admin?: boolean }> = [
  { method: 'POST', path: '/signup' },
  { method: 'POST', path: '/token?grant_type=password' },
  { method: 'POST', path: '/token?grant_type=refresh_token' },
  { method: 'POST', path: '/verify' },
  { method: 'POST', path: '/recover' },
  { method: 'POST', path: '/resend' },
  { method: 'POST', path: '/otp' },
  { method: 'PUT', path: '/user', auth: true },
  { method: 'POST', path: '/logout', auth: true },
  { method: 'POST', path: '/factors/recovery-codes', auth: true },
  { method: 'POST', path: '/factors/recovery-codes/verify', auth: true },
  { method: 'POST', path: '/admin/users', admin: true },
  { method: 'PUT', path: '/admin/users/00000000-0000-4000-8000-000000000000', admin: true },
  { method: 'DELETE', path: '/admin/users/00000000-0000-4000-8000-000000000000', admin: true },
  { method: 'POST', path: '/admin/generate_link', admin: true },
  { method: 'POST', path: '/invite', admin: true },
];

/** The credential headers an endpoint is called with. */
function credentials(e: (typeof endpoints)[number]): Record<string, string> {
  if (e.admin) return { apikey: SERVICE_KEY, authorization: `Bearer ${SERVICE_KEY}` };
  return e.auth ? { authorization: `Bearer ${accessToken}` } : {};
}

async function send(
  e: (typeof endpoints)[number],
  body: BodyInit | undefined,
  headers: Record<string, string> = {},
) {
  const res = await t.api(e.path, {
    method: e.method,
    body,
    headers: {
      'content-type': 'application/json',
      ...credentials(e),
      ...headers,
    },
  });
  const text = await res.text();
  return { status: res.status, text, json: text ? JSON.parse(text) : undefined };
}

function expectGoTrueError(
  r: { status: number; text: string; json: Record<string, unknown> | undefined },
  code?: string,
) {
  expect(r.status).toBeGreaterThanOrEqual(400);
  expect(r.status).toBeLessThan(500);
  expect(r.json).toMatchObject({ code: r.status, error_code: expect.any(String), msg: expect.any(String) });
  expect(r.text).not.toMatch(/at .*\.ts:\d+|node_modules|stack/i);
  if (code) expect(r.json?.error_code).toBe(code);
}

const hostileBodies: Array<[string, unknown]> = [
  ['array body', []],
  ['string body', 'hello'],
  ['number email', { email: 42, password: 'secret-pass', refresh_token: 42, type: 7, token_hash: 9 }],
  [
    'object email (NoSQL style)',
    { email: { $ne: '' }, password: { $ne: '' }, refresh_token: { $ne: '' }, type: {} },
  ],
  ['null everything', { email: null, password: null, refresh_token: null, type: null, data: null }],
  ['boolean fields', { email: true, password: false, refresh_token: true, type: true }],
  [
    'huge strings',
    {
      email: `${'a'.repeat(5000)}@x.com`,
      password: 'p'.repeat(5000),
      refresh_token: 'r'.repeat(5000),
      type: 'signup',
      token_hash: 'h'.repeat(5000),
    },
  ],
  [
    'control characters',
    {
      email: 'a\u0000b@x.com\r\nBcc: evil@x.com',
      password: '\u0000\u0000\u0000\u0000\u0000\u0000',
      refresh_token: '\u0000'.repeat(20),
      type: 'signup\u0000',
      token: '\r\n',
    },
  ],
  [
    'prototype keys',
    JSON.parse(
      '{"__proto__":{"admin":true},"constructor":{"prototype":{"x":1}},"email":"p@x.com","password":"secret-pass","type":"signup","data":{"__proto__":{"polluted":true}}}',
    ),
  ],
];

describe.each(endpoints)('$method $path', (e) => {
  it('rejects malformed JSON with 400 bad_json', async () => {
    for (const body of [
      '{',
      '{"email": "a@b.c",}',
      '{"a":1} trailing',
      'NaN',
      '\uFEFF{"a":',
      '{"a":"\\ud800"',
    ]) {
      const r = await send(e, body);
      if (e.path === '/logout' && r.status === 204) continue; // never reached: logout parses first
      expectGoTrueError(r, 'bad_json');
    }
  });

  it('rejects bodies nested deeper than 64 levels with 400 bad_json (10,000 deep was a 500)', async () => {
    for (const body of [
      `${'['.repeat(10_000)}${']'.repeat(10_000)}`,
      `{"email":"a@b.c","password":"secret-pass","data":{"x":${'['.repeat(5000)}${']'.repeat(5000)}}}`,
      `{"data":${'{"a":'.repeat(65)}1${'}'.repeat(65)}}`,
    ]) {
      const r = await send(e, body);
      if (e.path === '/logout' && r.status === 204) continue;
      expectGoTrueError(r, 'bad_json');
    }
  });

  it('reads a body as JSON only when it is sent as application/json (no preflight-free bodies)', async () => {
    const body = JSON.stringify({ email: uniqueEmail('ct'), password: 'secret-pass', refresh_token: 'x' });
    for (const type of [
      'text/plain',
      'text/plain;charset=UTF-8',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/jsonp',
    ])
      expectGoTrueError(await send(e, body, { 'content-type': type }), 'bad_json');
    // No type at all (a Uint8Array body gets none from fetch), also a "simple" cross-site request.
    const untyped = await fetch(`${t.url}/auth/v1${e.path}`, {
      method: e.method,
      body: new TextEncoder().encode(body),
      headers: { apikey: t.anonKey, ...credentials(e) },
    });
    expect(untyped.headers.get('content-type')).toMatch(/json/);
    const text = await untyped.text();
    expectGoTrueError({ status: untyped.status, text, json: JSON.parse(text) }, 'bad_json');
  });

  it('rejects bodies over 1 MB with 413', async () => {
    const r = await send(e, JSON.stringify({ email: 'a@b.c', pad: 'x'.repeat(1024 * 1024 + 10) }));
    expectGoTrueError(r, 'request_entity_too_large');
  });

  it.each(hostileBodies)('answers %s with a 4xx (or a normal success), never 5xx', async (_label, body) => {
    const r = await send(e, JSON.stringify(body));
    // Some hostile-looking bodies are valid requests (e.g. prototype keys next to a real email).
    if (r.status < 300) return;
    expectGoTrueError(r);
  });
});

/** A body sent chunked (no Content-Length), in 64 KiB pieces. */
function streamed(bytes: Uint8Array): RequestInit {
  return {
    body: new ReadableStream({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 65_536) controller.enqueue(bytes.subarray(i, i + 65_536));
        controller.close();
      },
    }),
    duplex: 'half',
  } as RequestInit;
}

describe('body reading: declared length and chunked', () => {
  const json = { 'content-type': 'application/json' };

  it('refuses a chunked body once it passes 1 MB (no Content-Length to check up front)', async () => {
    const big = new TextEncoder().encode(
      JSON.stringify({ email: 'a@b.c', pad: 'x'.repeat(1024 * 1024 + 10) }),
    );
    const res = await t.api('/signup', { method: 'POST', headers: json, ...streamed(big) });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error_code: 'request_entity_too_large' });
  });

  it('parses a chunked body like a declared one', async () => {
    const email = uniqueEmail('chunked');
    const body = new TextEncoder().encode(JSON.stringify({ email, password: 'secret-pass' }));
    const res = await t.api('/signup', { method: 'POST', headers: json, ...streamed(body) });
    expect(res.status).toBe(200);
    expect((await res.json()).user.email).toBe(email);
  });

  it('refuses invalid UTF-8 whether the length is declared or not', async () => {
    const bad = Uint8Array.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]); // {"a":"\xff\xfe"}
    for (const init of [{ body: bad }, streamed(bad)]) {
      const res = await t.api('/signup', { method: 'POST', headers: json, ...init });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error_code: 'bad_json' });
    }
  });
});

describe('content types', () => {
  it('a text/plain sign-up is refused before anything happens; JSON with a charset is read', async () => {
    const email = uniqueEmail('plain');
    const body = JSON.stringify({ email, password: 'secret-pass' });
    const plain = await t.api('/signup', { method: 'POST', headers: { 'content-type': 'text/plain' }, body });
    expect(plain.status).toBe(400);
    expect(await plain.json()).toMatchObject({ error_code: 'bad_json' });
    const [stored] = await t.server.deps.db.select().from(users).where(eq(users.email, email));
    expect(stored).toBeUndefined();
    const json = await t.api('/signup', {
      method: 'POST',
      headers: { 'content-type': 'Application/JSON; charset=UTF-8' },
      body,
    });
    expect(json.status).toBe(200);
  });

  it('a bodiless POST without a type still works (curl -X POST /logout)', async () => {
    const { data } = await t.client().auth.signUp({ email: uniqueEmail('bare'), password: 'secret-pass' });
    const res = await fetch(`${t.url}/auth/v1/logout`, {
      method: 'POST',
      headers: { apikey: t.anonKey, authorization: `Bearer ${data.session!.access_token}` },
    });
    expect(res.status).toBe(204);
  });
});

describe('other bad input', () => {
  it('keeps __proto__, constructor and prototype in data as plain keys, and pollutes nothing', async () => {
    // Accepted as GoTrue does (it stores any JSON object), so the test proves they stay inert data.
    const email = uniqueEmail('proto');
    const signup = await t.api('/signup', {
      method: 'POST',
      body: `{"email":"${email}","password":"secret-pass","__proto__":{"polluted":1,"role":"service_role"},
        "data":{"__proto__":{"polluted":2},"constructor":{"prototype":{"polluted":3}},"ok":1}}`,
    });
    expect(signup.status).toBe(200);
    const { access_token: token, user } = await signup.json();
    expect(user.role).toBe('authenticated');
    expect(Object.hasOwn(user.user_metadata, '__proto__')).toBe(true);
    expect(Object.getOwnPropertyDescriptor(user.user_metadata, '__proto__')?.value).toEqual({ polluted: 2 });
    // A second __proto__ arrives by PUT /user onto metadata that has none yet: merged as a plain key too.
    const other = await t.client().auth.signUp({ email: uniqueEmail('proto2'), password: 'secret-pass' });
    const put = await t.api('/user', {
      method: 'PUT',
      headers: { authorization: `Bearer ${other.data.session!.access_token}` },
      body: '{"data":{"__proto__":{"polluted":4},"ok":1}}',
    });
    expect(put.status).toBe(200);
    for (const who of [token as string, other.data.session!.access_token]) {
      const res = await t.api('/user', { headers: { authorization: `Bearer ${who}` } });
      const meta = (await res.json()).user_metadata;
      expect(Object.hasOwn(meta, '__proto__'), who.slice(-8)).toBe(true);
      expect(meta.ok).toBe(1);
    }
    const [stored] = await t.server.deps.db
      .select()
      .from(users)
      .where(eq(users.email, other.data.user!.email!));
    expect(Object.hasOwn(stored!.userMetadata, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(stored!.userMetadata)).toBe(Object.prototype);
    // Nothing reached a shared prototype in this process (the service runs in it).
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
    expect((Object as unknown as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('a top-level __proto__ cannot supply a missing field', async () => {
    const res = await t.api('/signup', {
      method: 'POST',
      body: `{"email":"${uniqueEmail('proto3')}","__proto__":{"password":"secret-pass"}}`,
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error_code).toBe('validation_failed');
  });

  it('answers unknown routes and unsupported grants with JSON 4xx', async () => {
    const unknown = await t.api('/definitely-not-here');
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error_code).toBe('not_found');
    const grant = await t.api('/token?grant_type=magic', { method: 'POST', body: '{}' });
    expect(grant.status).toBe(400);
    expect((await grant.json()).error_code).toBe('unsupported_grant_type');
  });

  it('requires the apikey except for the email link, health and JWKS', async () => {
    const res = await fetch(`${t.url}/auth/v1/settings`);
    expect(res.status).toBe(401);
    expect((await res.json()).error_code).toBe('no_api_key');
    const wrong = await fetch(`${t.url}/auth/v1/settings`, { headers: { apikey: 'nope' } });
    expect((await wrong.json()).error_code).toBe('invalid_api_key');
    expect((await fetch(`${t.url}/auth/v1/health`)).status).toBe(200);
  });

  it('accepts the SERVICE_ROLE_KEY as apikey, and refuses a key that differs in one character', async () => {
    const serviceKey = 'service-role-key-for-tests-0123456789abcdef';
    const s = await startTestServer({ SERVICE_ROLE_KEY: serviceKey });
    try {
      const ok = await fetch(`${s.url}/auth/v1/settings`, { headers: { apikey: serviceKey } });
      expect(ok.status).toBe(200);
      const nearMiss = `${serviceKey.slice(0, -1)}0`;
      const refused = await fetch(`${s.url}/auth/v1/settings`, { headers: { apikey: nearMiss } });
      expect(refused.status).toBe(401);
      expect((await refused.json()).error_code).toBe('invalid_api_key');
    } finally {
      await s.close();
    }
  });

  it('rejects invalid emails, weak and over-long passwords at sign-up', async () => {
    const cases: Array<[unknown, string]> = [
      [{ email: 'not-an-email', password: 'secret-pass' }, 'validation_failed'],
      [{ email: 'ünïcode@exämple.com', password: 'secret-pass' }, 'validation_failed'],
      [{ email: uniqueEmail(), password: '12345' }, 'weak_password'],
      [{ email: uniqueEmail(), password: '😀😀😀😀😀' }, 'weak_password'],
      [{ email: uniqueEmail(), password: 'x'.repeat(101) }, 'validation_failed'],
      [{ email: uniqueEmail() }, 'validation_failed'],
      [{ password: 'secret-pass' }, 'anonymous_provider_disabled'],
      [{ email: uniqueEmail(), password: 'secret-pass', data: [1, 2] }, 'validation_failed'],
      [
        { email: uniqueEmail(), password: 'secret-pass', data: { big: 'x'.repeat(20000) } },
        'validation_failed',
      ],
    ];
    for (const [body, code] of cases) {
      const r = await t.api('/signup', { method: 'POST', body: JSON.stringify(body) });
      const json = await r.json();
      expect({ body, code: json.error_code }).toEqual({ body, code });
    }
    const weak = await t.api('/signup', {
      method: 'POST',
      headers: { 'X-Supabase-Api-Version': '2024-01-01' },
      body: JSON.stringify({ email: uniqueEmail(), password: '123' }),
    });
    expect(weak.status).toBe(422);
    expect(await weak.json()).toEqual({
      code: 'weak_password',
      message: 'Password should be at least 6 characters.',
      weak_password: { reasons: ['length'] },
    });
    // 6 emoji are 6 characters (code points), not 12.
    const emoji = await t.api('/signup', {
      method: 'POST',
      body: JSON.stringify({ email: uniqueEmail(), password: '😀😀😀😀😀😀' }),
    });
    expect(emoji.status).toBe(200);
  });

  it('rejects a bad logout scope and bogus refresh tokens', async () => {
    const { data } = await t.client().auth.signUp({ email: uniqueEmail('scope'), password: 'secret-pass' });
    const token = data.session!.access_token;
    const scope = await t.api('/logout?scope=everything', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(scope.status).toBe(400);
    const short = await t.api('/token?grant_type=refresh_token', {
      method: 'POST',
      body: JSON.stringify({ refresh_token: 'abc' }),
    });
    expect((await short.json()).error_code).toBe('validation_failed');
    const unknown = await t.api('/token?grant_type=refresh_token', {
      method: 'POST',
      body: JSON.stringify({ refresh_token: 'a'.repeat(43) }),
    });
    expect((await unknown.json()).error_code).toBe('refresh_token_not_found');
  });

  it('answers a bad GET /verify link with a redirect carrying the error, and ignores HEAD', async () => {
    const res = await fetch(
      `${t.url}/auth/v1/verify?token=nope&type=signup&redirect_to=javascript:alert(1)`,
      { redirect: 'manual' },
    );
    expect(res.status).toBe(303);
    const location = res.headers.get('location') as string;
    expect(location.startsWith(t.config.SITE_URL)).toBe(true);
    expect(location).toContain('error_code=otp_expired');
    const head = await fetch(`${t.url}/auth/v1/verify?token=nope&type=signup`, { method: 'HEAD' });
    expect(head.status).toBe(200);
  });

  it('GET /reauthenticate needs a valid bearer token; a wrong-type nonce is a 400', async () => {
    const anonymous = await t.api('/reauthenticate');
    expect(anonymous.status).toBe(401);
    expect((await anonymous.json()).error_code).toBe('no_authorization');
    const forged = await t.api('/reauthenticate', { headers: { authorization: 'Bearer a.b.c' } });
    expect(forged.status).toBe(403);
    expect((await forged.json()).error_code).toBe('bad_jwt');
    // A session of its own: earlier tests in this file sign the shared one out.
    const { data } = await t.client().auth.signUp({ email: uniqueEmail('nonce'), password: 'secret-pass' });
    const token = data.session?.access_token as string;
    for (const nonce of [123456, ['123456'], { $ne: '' }, 'x'.repeat(101)]) {
      const res = await t.api('/user', {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}` },
        body: JSON.stringify({ password: 'another-pass-1', nonce }),
      });
      expect(res.status).toBe(400);
      expect((await res.json()).error_code).toBe('validation_failed');
    }
  });
});

describe('user metadata size', () => {
  /** A signed-in client (this suite's server confirms sign-ups at once). */
  async function signedUpClient(email: string) {
    const sb = t.client();
    const { error } = await sb.auth.signUp({ email, password: 'secret-pass' });
    expect(error).toBeNull();
    return sb;
  }

  it('caps the merged metadata at 8 KB, and a user near or over the cap can still shrink it', async () => {
    const email = uniqueEmail('meta');
    const sb = await signedUpClient(email);
    const stored = async () => {
      const [row] = await t.server.deps.db
        .select({ m: users.userMetadata })
        .from(users)
        .where(eq(users.email, email));
      return row?.m as Record<string, unknown>;
    };
    // Each patch is under the per-request cap; the third would take the sum over it.
    const chunk = 'x'.repeat(3000);
    expect((await sb.auth.updateUser({ data: { a: chunk } })).error).toBeNull();
    expect((await sb.auth.updateUser({ data: { b: chunk } })).error).toBeNull();
    const before = await stored();
    const third = await sb.auth.updateUser({ data: { c: chunk } });
    expect(third.error).toMatchObject({
      status: 400,
      code: 'validation_failed',
      message: 'data is too large',
    });
    expect(await stored()).toEqual(before);
    // Replacing a key with a small value shrinks the metadata, which is always allowed.
    const shrunk = await sb.auth.updateUser({ data: { a: 'small' } });
    expect(shrunk.error).toBeNull();
    expect(shrunk.data.user?.user_metadata).toMatchObject({ a: 'small', b: chunk });

    // An account stored over the cap (before the cap existed) may shrink it, but not grow it.
    const big = 'y'.repeat(10_000);
    await t.server.deps.db
      .update(users)
      .set({ userMetadata: { a: big, b: big } })
      .where(eq(users.email, email));
    const grow = await sb.auth.updateUser({ data: { c: 'z' } });
    expect(grow.error).toMatchObject({ status: 400, code: 'validation_failed' });
    expect((await sb.auth.updateUser({ data: { a: 'small' } })).error).toBeNull();
    expect((await sb.auth.updateUser({ data: { b: null } })).error).toBeNull();
    expect(await stored()).toEqual({ a: 'small' });
  });

  it('checks the cap on the merged metadata under the row lock (concurrent patches cannot exceed it)', async () => {
    const email = uniqueEmail('meta-race');
    const sb = await signedUpClient(email);
    // Each patch fits alone; any two together do not. Merged onto a stale copy, all would pass.
    const chunk = 'x'.repeat(5000);
    const results = await Promise.all(
      ['a', 'b', 'c', 'd'].map((k) => sb.auth.updateUser({ data: { [k]: chunk } })),
    );
    expect(results.filter((r) => r.error === null)).toHaveLength(1);
    for (const r of results.filter((r) => r.error !== null))
      expect(r.error).toMatchObject({ status: 400, code: 'validation_failed' });
    const [row] = await t.server.deps.db
      .select({ m: users.userMetadata })
      .from(users)
      .where(eq(users.email, email));
    expect(Object.values(row?.m ?? {}).filter((v) => v === chunk)).toHaveLength(1);
  });

  it('keeps an account whose metadata is at the cap usable: its fresh tokens still pass every request', async () => {
    const email = uniqueEmail('meta-full');
    const sb = await signedUpClient(email);
    // Multi-byte text: the cap counts characters, the token carries UTF-8 bytes (the worst case).
    const full = { bio: 'ن'.repeat(4000) };
    expect((await sb.auth.updateUser({ data: full })).error).toBeNull();
    const again = t.client();
    const signedIn = await again.auth.signInWithPassword({ email, password: 'secret-pass' });
    expect(signedIn.error).toBeNull();
    expect((await again.auth.getUser()).data.user?.user_metadata).toMatchObject(full);
    expect((await again.auth.refreshSession()).error).toBeNull();
    expect((await again.auth.updateUser({ data: { bio: 'short' } })).error).toBeNull();
  });
});
