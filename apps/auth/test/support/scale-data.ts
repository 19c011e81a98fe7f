import { refreshTokenSessionPart } from '../../src/core/refresh-token.ts';
import { sha256 } from '../../src/crypto/tokens.ts';

/**
 * Bulk rows shaped like the service's own writes (the same columns, JSON and hash formats as
 * signup, password sign-in, refresh, email links, PKCE, MFA, the audit log, rate limits and the
 * outbox), loaded with set-based SQL so a million accounts take minutes, not days. Used by the plan
 * test (test/db/plans.test.ts) and the scale benchmark (bench/scale.ts).
 *
 * Ids are derived from the row number (`u(i)`, `s(i)`, …), so a chunk is one statement per table
 * and the benchmark can pick random existing rows without reading them back. Email: user<i>@scale.test.
 */

/**
 * The tables whose size follows the number of accounts or the traffic (signing keys and secrets do
 * not; nor does refresh_tokens any more: it only holds tokens issued before sessions held them,
 * and shrinks as they rotate).
 */
export const GROWING_TABLES = [
  'users',
  'identities',
  'sessions',
  'one_time_tokens',
  'flow_state',
  'mfa_factors',
  'mfa_challenges',
  'used_totp_codes',
  'audit_log_entries',
  'rate_limit_counters',
  'mail_outbox',
  'passkeys',
  'passkey_challenges',
] as const;

export type ScaleShape = {
  /** Sessions per user (each holding its active refresh token's hash). */
  sessionsPerUser: number;
  /** Days between a session's last two refreshes (its refresh_token_previous_at). */
  rotationDays: number;
  /** Audit rows per user, spread over `auditDays`. */
  auditPerUser: number;
  auditDays: number;
  /** Share of links, flow states, challenges, windows and mail that are past due for the sweep. */
  dueShare: number;
};

/** A month of traffic as the service writes it with no sweep (the issue's measurement). */
export const MONTH_OF_HISTORY: ScaleShape = {
  sessionsPerUser: 2,
  rotationDays: 7,
  auditPerUser: 5,
  auditDays: 30,
  dueShare: 0.9,
};

/** Short histories, little due: what the default sweeps leave. */
export const STEADY_STATE: ScaleShape = {
  sessionsPerUser: 2,
  rotationDays: 1,
  auditPerUser: 5,
  auditDays: 89,
  dueShare: 0.01,
};

/** Deterministic uuids per kind and row number (the prefix keeps kinds apart). */
const id = (prefix: string, expr: string) => `('${prefix}' || lpad(to_hex(${expr}), 24, '0'))::uuid`;
export const userId = (i: number) =>
  `${'a0000000'}-${pad(i).slice(0, 4)}-${pad(i).slice(4, 8)}-${pad(i).slice(8, 12)}-${pad(i).slice(12)}`;
function pad(i: number): string {
  return i.toString(16).padStart(24, '0');
}
/** The uuid of session `j` (= user * sessionsPerUser + k). */
export const sessionId = (j: number) =>
  `${'b0000000'}-${pad(j).slice(0, 4)}-${pad(j).slice(4, 8)}-${pad(j).slice(8, 12)}-${pad(j).slice(12)}`;
/**
 * The active refresh token of session `j` (its SHA-256 is on the session row), which the benchmark
 * presents: the current format (core/refresh-token.ts), the session's id then a deterministic part.
 */
export const activeTokenOf = (j: number) =>
  `${refreshTokenSessionPart(sessionId(j))}.${sha256(`scale-active-token-${j}`)}`;

/**
 * The SQL statements that load users [from, to) with their relations and history, in order. `hash`
 * is one real argon2id hash every account shares (verifying it costs what a real one does).
 */
export function scaleChunkSql(from: number, to: number, hash: string, shape: ScaleShape): string[] {
  const spu = shape.sessionsPerUser;
  const due = shape.dueShare;
  const q = (s: string) => `'${s.replaceAll("'", "''")}'`;
  const users = `generate_series(${from}, ${to - 1}) as i`;
  const sessions = `generate_series(${from * spu}, ${to * spu - 1}) as j`;
  // Times: spread deterministically over the window (row number modulo a prime), never random, so
  // two loads of one size are the same data; minus one microsecond per row number, so that no two
  // rows share a time, as no two real writes do (B-tree deduplication would otherwise shrink every
  // time index to a fraction of its real size: it did, by ~100 B per account, before 2026-11-28).
  const ago = (days: number, expr: string, prime = 7919) =>
    `now() - interval '${days} days' * ((${expr}) % ${prime})::float8 / ${prime} - (${expr}) * interval '1 microsecond'`;
  // crypto/tokens.ts stores SHA-256 as unpadded base64url (43 characters).
  const b64url = (bytes: string) => `translate(rtrim(encode(${bytes}, 'base64'), '='), '+/', '-_')`;
  const dueCase = (expr: string) => `((${expr}) % 1000) < ${Math.round(due * 1000)}`;
  return [
    `insert into users (id, aud, role, email, encrypted_password, email_confirmed_at, confirmation_sent_at,
       email_change, email_change_sent_at, last_sign_in_at, raw_app_meta_data, raw_user_meta_data, created_at, updated_at)
     select ${id('a0000000', 'i')}, 'authenticated', 'authenticated', 'user' || i || '@scale.test', ${q(hash)},
       t, t, case when i % 100 = 7 then 'moving' || i || '@scale.test' end, case when i % 100 = 7 then t end,
       now() - interval '1 day' * (i % 30), '{"provider": "email", "providers": ["email"]}',
       '{"email_verified": true}', t, t
     from ${users}, lateral (select ${ago(365, 'i')} as t) x`,
    `insert into identities (id, provider_id, user_id, identity_data, provider, email, last_sign_in_at, created_at, updated_at)
     select ${id('c0000000', 'i')}, ${id('a0000000', 'i')}::text, ${id('a0000000', 'i')},
       json_build_object('sub', ${id('a0000000', 'i')}, 'email', 'user' || i || '@scale.test',
         'email_verified', true, 'phone_verified', false), 'email', 'user' || i || '@scale.test', now(), now(), now()
     from ${users}`,
    // Each session holds its active refresh token's hash (activeTokenOf: the session id's base64url,
    // a dot, the base64url SHA-256 of 'scale-active-token-<j>'); no refresh_tokens rows, as the
    // service writes none.
    `insert into sessions (id, user_id, aal, amr, factor_id, refreshed_at, refresh_token_hash,
       refresh_token_previous_at, refreshed_on, user_agent, ip, created_at, updated_at)
     select ${id('b0000000', 'j')}, ${id('a0000000', `j / ${spu}`)}, 'aal1',
       json_build_array(json_build_object('method', 'password', 'timestamp', extract(epoch from c)::bigint)),
       case when j % 500 = 3 then ${id('f0000000', 'j')} end, r,
       ${b64url(`sha256(convert_to(${b64url(`uuid_send(${id('b0000000', 'j')})`)} || '.' || ${b64url("sha256(convert_to('scale-active-token-' || j, 'UTF8'))")}, 'UTF8'))`)},
       greatest(c, r - interval '${shape.rotationDays} days'), (r at time zone 'UTC')::date,
       'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36',
       '203.0.' || (j % 250) || '.' || (j % 199), c, r
     from ${sessions}, lateral (select ${ago(30, 'j')} as c) x, lateral (select c + (now() - c) * ((j * 31 % 101) / 100.0) as r) y`,
    `insert into one_time_tokens (id, user_id, token_type, token_hash, otp_hash, relates_to, expires_at, created_at)
     select ${id('e0000000', 'i')}, ${id('a0000000', 'i')}, case when i % 3 = 0 then 'recovery' else 'confirmation' end,
       md5('ott' || i) || md5(i || 'ott'), md5('otp' || i) || md5(i || 'otp'), 'user' || i || '@scale.test',
       case when ${dueCase('i')} then ${ago(30, 'i')} - interval '2 days' else now() + interval '1 hour' end, now()
     from ${users} where i % 10 = 1`,
    `insert into flow_state (id, user_id, auth_code_hash, code_challenge, code_challenge_method, provider_type,
       authentication_method, expires_at, created_at, updated_at)
     select ${id('e1000000', 'i')}, ${id('a0000000', 'i')}, md5('fs' || i) || md5(i || 'fs'), md5('cc' || i), 's256', 'email',
       'recovery', case when ${dueCase('i')} then ${ago(30, 'i')} - interval '2 days' else now() + interval '5 minutes' end,
       now(), now()
     from ${users} where i % 20 = 2`,
    `insert into mfa_factors (id, user_id, friendly_name, factor_type, status, secret, created_at, updated_at)
     select ${id('f1000000', 'i')}, ${id('a0000000', 'i')}, 'phone app', 'totp', 'verified', md5('secret' || i), now(), now()
     from ${users} where i % 5 = 3`,
    `insert into used_totp_codes (factor_id, time_step, created_at)
     select ${id('f1000000', 'i')}, extract(epoch from now())::bigint / 30 - k, now()
     from ${users}, generate_series(0, 2) as k where i % 5 = 3`,
    `insert into passkeys (id, user_id, credential_id, public_key, sign_count, transports, friendly_name, created_at, updated_at)
     select ${id('f3000000', 'i')}, ${id('a0000000', 'i')}, left(md5('cred' || i) || md5(i || 'cred'), 43),
       repeat(md5('pk' || i), 3), 0, '["internal", "hybrid"]', 'iPhone', now(), now()
     from ${users} where i % 25 = 5`,
    `insert into passkey_challenges (id, user_id, challenge_type, challenge, expires_at, created_at)
     select ${id('f4000000', 'i')}, ${id('a0000000', 'i')}, 'registration', left(md5('ch' || i) || md5(i || 'ch'), 43),
       case when ${dueCase('i')} then ${ago(30, 'i')} - interval '2 days' else now() + interval '5 minutes' end, now()
     from ${users} where i % 5 = 4`,
    `insert into mfa_challenges (id, factor_id, ip_address, expires_at, created_at)
     select ${id('f2000000', 'i')}, ${id('f1000000', 'i')}, '203.0.113.9',
       case when ${dueCase('i')} then ${ago(30, 'i')} - interval '2 days' else now() + interval '5 minutes' end, now()
     from ${users} where i % 5 = 3`,
    `insert into audit_log_entries (id, action, actor_id, ip_address, payload, created_at)
     select ${id('e2000000', `i * ${shape.auditPerUser} + k`)},
       (array['login', 'token_refreshed', 'token_refreshed', 'logout', 'user_recovery_requested'])[1 + k % 5],
       ${id('a0000000', 'i')}, '203.0.113.' || (i % 250), '{"provider": "email"}',
       now() - interval '${shape.auditDays} days' * ((i * 7 + k * 13) % 9973)::float8 / 9973
         - (i * ${shape.auditPerUser} + k) * interval '1 microsecond'
     from ${users}, generate_series(0, ${shape.auditPerUser - 1}) as k`,
    // Rate limits: a sign-in window per user (most long past when due is high), a known network per
    // user (recent), a back-off streak for one user in twenty.
    `insert into rate_limit_counters (key, window_start, count, last_hit_at)
     select 'signin:account:user' || i || '@scale.test',
       case when ${dueCase('i')} then ${ago(30, 'i')} - interval '2 days' else date_trunc('hour', now()) end, 1, null
     from ${users}
     union all
     select 'known:signin:user' || i || '@scale.test:203.0.113.0', timestamptz 'epoch', 1, now() - interval '1 day' * (i % 29)
     from ${users}
     union all
     select 'backoff:signin:user' || i || '@scale.test:203.0.113.0', timestamptz 'epoch', 3,
       case when ${dueCase('i')} then ${ago(30, 'i')} - interval '2 days' else now() end
     from ${users} where i % 20 = 4`,
    `insert into mail_outbox (id, user_id, kind, to_address, subject, html, text, status, attempts, next_attempt_at, sent_at, created_at)
     select ${id('e3000000', 'i')}, ${id('a0000000', 'i')}, 'recovery', 'user' || i || '@scale.test', 'Reset your password',
       '', '', 'sent', 1, c, c, c
     from ${users}, lateral (select case when ${dueCase('i')} then ${ago(30, 'i')} - interval '7 days' else now() end as c) x
     where i % 5 = 0`,
  ];
}
