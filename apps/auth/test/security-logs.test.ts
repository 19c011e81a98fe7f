// Secret scan over the service's own logs (ASVS 16.2.5, catalogue case 50): a whole account journey
// at the most verbose level, then no password, email code, link token, refresh token or JWT may
// appear anywhere in what was logged.
import { Writable } from 'node:stream';
import { createClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { type RunningServer, startServer } from '../src/main.ts';
import { uniqueEmail } from './support/test-server.ts';

let server: RunningServer;
let logs = '';
beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _enc, done) {
      logs += chunk.toString();
      done();
    },
  });
  const config = loadConfig({
    NODE_ENV: 'test',
    PORT: '0',
    DATA_DIR: 'memory://',
    LOG_LEVEL: 'trace',
    EMAIL_RESPONSE_FLOOR_MS: '0',
    REFRESH_TOKEN_REUSE_INTERVAL: '0',
  });
  server = await startServer(config, { host: '127.0.0.1', site: false, logger: createLogger('trace', sink) });
  config.SITE_URL = server.url;
});
afterAll(async () => {
  await server?.close();
});

it('logs no password, code, link token, refresh token or JWT during a whole journey', async () => {
  const { url } = server;
  const anon = server.deps.config.ANON_KEY;
  const sb = createClient(url, anon, { auth: { persistSession: false, autoRefreshToken: false } });
  const email = uniqueEmail('logscan');
  const secrets: string[] = ['Sup3r secret pass', 'An0ther secret pass', 'wrong secret guess'];
  expect((await sb.auth.signUp({ email, password: secrets[0] as string })).error).toBeNull();
  await server.deps.mail.idle();
  const mails = (await (
    await fetch(`${url}/auth/v1/_dev/mailbox.json?to=${encodeURIComponent(email)}`)
  ).json()) as Array<{
    text: string;
  }>;
  const text = mails[0]?.text ?? '';
  const link = text.match(/https?:\/\/\S+verify\S+/)?.[0] as string;
  const code = text.match(/\b\d{6}\b/)?.[0];
  expect(link).toBeTruthy();
  secrets.push(new URL(link).searchParams.get('token') as string);
  if (code) secrets.push(code);
  const landed = await fetch(link, { redirect: 'manual' });
  const fragment = new URLSearchParams(new URL(landed.headers.get('location') as string).hash.slice(1));
  secrets.push(fragment.get('access_token') as string, fragment.get('refresh_token') as string);

  await sb.auth.signInWithPassword({ email, password: secrets[2] as string });
  const signIn = await sb.auth.signInWithPassword({ email, password: secrets[0] as string });
  const session = signIn.data.session;
  secrets.push(session?.access_token as string, session?.refresh_token as string);
  const oldRefresh = session?.refresh_token as string;
  const refreshed = await sb.auth.refreshSession();
  secrets.push(refreshed.data.session?.refresh_token as string);
  await sb.auth.refreshSession();
  // A replay (theft), a bad JWT and a password change.
  await fetch(`${url}/auth/v1/token?grant_type=refresh_token`, {
    method: 'POST',
    headers: { apikey: anon, 'content-type': 'application/json' },
    body: JSON.stringify({ refresh_token: oldRefresh }),
  });
  await fetch(`${url}/auth/v1/user`, {
    headers: { apikey: anon, authorization: 'Bearer eyJhbGciOiJIUzI1NiJ9.e30.abc' },
  });
  const again = await sb.auth.signInWithPassword({ email, password: secrets[0] as string });
  secrets.push(again.data.session?.access_token as string);
  await sb.auth.updateUser({ password: secrets[1] as string });
  await sb.auth.resetPasswordForEmail(email);
  await sb.auth.signOut();
  await server.deps.mail.idle();

  expect(logs.length).toBeGreaterThan(1000); // it did log, verbosely
  for (const secret of secrets.filter(Boolean))
    expect(logs, `a secret reached the logs`).not.toContain(secret);
  expect(logs).not.toMatch(/eyJ[\w-]{10,}\.[\w-]{10,}\.[\w-]{10,}/); // no whole JWT at all
  expect(logs).not.toMatch(/\$argon2id\$/);
});
