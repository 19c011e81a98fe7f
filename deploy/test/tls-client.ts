// A supabase-js client of the service through nginx and TLS, run as its own process so that it
// trusts the test's self-signed certificate the way any client would (NODE_EXTRA_CA_CERTS).
//   node tls-client.ts smoke <https url>   sign-up, sign-in, refresh, getUser; prints one JSON line
//   node tls-client.ts load <https url>    signs in, reads the user and refreshes in a loop on 4
//                                          workers until SIGTERM; prints a JSON count of every answer
import { randomBytes } from 'node:crypto';
import { createClient } from '@supabase/supabase-js';

const [mode, url] = process.argv.slice(2) as [string, string];
const ANON = process.env.ANON_KEY ?? 'sb_publishable_namaa_development_key';
const PASSWORD = 'Deploy-smoke-Pass-2071';

/** Every HTTP status seen, plus `network` for a request that got no answer at all. */
const answers: Record<string, number> = {};
const count = (key: string) => {
  answers[key] = (answers[key] ?? 0) + 1;
};
const countingFetch: typeof fetch = async (input, init) => {
  try {
    const res = await fetch(input, init);
    count(String(res.status));
    return res;
  } catch (err) {
    count('network');
    throw err;
  }
};

const client = () =>
  createClient(url, ANON, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    global: { fetch: countingFetch },
  });

function must<T extends { error: unknown }>(step: string, result: T): T {
  if (result.error) throw new Error(`${step}: ${JSON.stringify(result.error)}`);
  return result;
}

async function signUpUser() {
  const email = `deploy-${randomBytes(5).toString('hex')}@example.com`;
  const sb = client();
  const signedUp = must('signUp', await sb.auth.signUp({ email, password: PASSWORD }));
  return { email, sb, signedUp };
}

if (mode === 'smoke') {
  const { email, sb, signedUp } = await signUpUser();
  const signedIn = must(
    'signInWithPassword',
    await sb.auth.signInWithPassword({ email, password: PASSWORD }),
  );
  const refreshed = must('refreshSession', await sb.auth.refreshSession());
  const user = must('getUser', await sb.auth.getUser());
  console.log(
    JSON.stringify({
      signUp: Boolean(signedUp.data.user?.id),
      signIn: Boolean(signedIn.data.session?.access_token),
      refreshed: refreshed.data.session?.refresh_token !== signedIn.data.session?.refresh_token,
      user: user.data.user?.email === email,
      answers,
    }),
  );
} else if (mode === 'load') {
  let stopping = false;
  process.once('SIGTERM', () => {
    stopping = true;
  });
  const failures: string[] = [];
  const worker = async () => {
    const { email } = await signUpUser();
    while (!stopping) {
      const sb = client();
      // A POST that is not idempotent (a sign-in), a GET, and a POST that rotates a token.
      const signIn = await sb.auth.signInWithPassword({ email, password: PASSWORD });
      if (signIn.error) failures.push(`signIn ${signIn.error.status} ${signIn.error.message}`);
      else {
        const user = await sb.auth.getUser();
        if (user.error) failures.push(`getUser ${user.error.status} ${user.error.message}`);
        const refreshed = await sb.auth.refreshSession();
        if (refreshed.error) failures.push(`refresh ${refreshed.error.status} ${refreshed.error.message}`);
      }
      process.stderr.write('.');
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  console.log(JSON.stringify({ answers, failures: failures.slice(0, 20), failureCount: failures.length }));
} else {
  console.error('usage: tls-client.ts smoke|load <https url>');
  process.exit(1);
}
