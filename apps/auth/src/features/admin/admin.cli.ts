// The operator CLI: the admin API's user management from a shell, over the same domain functions
// (admin-users.ts, admin-links.ts), audited as `cli:<os user>`.
//
//   npm run admin -- users list [--page N] [--per-page N] [--filter TEXT]
//   npm run admin -- users show <id|email>
//   npm run admin -- users create --email E [--phone P] [--password P | --password-hash H] [--confirm]
//                                 [--role R] [--metadata JSON]
//   npm run admin -- users ban <id|email> [--duration 24h]      (Go duration; default 876000h, ~100 years)
//   npm run admin -- users unban <id|email>
//   npm run admin -- users delete <id|email> [--soft]
//   npm run admin -- users export <id|email|phone> [--out FILE]  (the account page's export, PDPL access)
//   npm run admin -- users erase <id|email|phone>               (the account page's deletion, PDPL erasure)
//   npm run admin -- users invite <email> [--redirect-to URL]   (mails the invitation)
//   npm run admin -- users link <signup|invite|magiclink|recovery|email_change_current|email_change_new>
//                               <email> [--new-email E] [--password P] [--redirect-to URL]
//   add --json to any command for machine-readable output (one JSON document on stdout).
//
// Exit codes: 0 done, 1 bad usage or refused by the service's rules (the GoTrue error code and
// message on stderr), 2 the embedded database is in use by a running service.
//
// It uses the server's environment (.env, DATABASE_URL or DATA_DIR). With PostgreSQL it runs beside
// the service. The embedded PGlite database serves one process: while the service runs on it, the
// command refuses (the data directory's lock) and changes nothing.
import { writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { type Config, ConfigError, loadConfig, loadDotEnv } from '../../config.ts';
import type { Deps } from '../../core/deps.ts';
import { adminActor } from '../../core/http/guards.ts';
import type { User } from '../../core/http/response-schemas.ts';
import { createMailDispatcher } from '../../core/mail/dispatcher.ts';
import { createMailTemplates } from '../../core/mail/templates.ts';
import { devMailboxTransport, smtpTransport } from '../../core/mail/transport.ts';
import { resolveRedirect } from '../../core/redirect.ts';
import { noSms } from '../../core/sms/sender.ts';
import { KeyStore } from '../../crypto/jwt.ts';
import { databaseOptions, openDatabase } from '../../db/client.ts';
import { DataDirLockedError } from '../../db/data-dir-lock.ts';
import { migrate } from '../../db/migrate.ts';
import { getOrCreateSecret } from '../../db/secrets.repo.ts';
import { ensureSigningKey, listSigningKeys } from '../../db/signing-keys.repo.ts';
import { findUserById } from '../../db/users.repo.ts';
import { AuthError } from '../../errors.ts';
import { createLogger } from '../../logger.ts';
import { eraseAccountFor, exportAccount } from '../account/index.ts';
import { parsePagination } from './admin-input.ts';
import { generateLink, inviteUser } from './admin-links.ts';
import {
  type AdminContext,
  createUser,
  deleteUser,
  getUser,
  listUsers,
  resolveUserRef,
  updateUserById,
} from './admin-users.ts';

export class UsageError extends Error {
  override name = 'UsageError';
}

const USAGE = `usage: npm run admin -- users <list|show|create|ban|unban|delete|export|erase|invite|link> [options] [--json]
  users list [--page N] [--per-page N] [--filter TEXT]
  users show <id|email>
  users create --email E [--phone P] [--password P | --password-hash H] [--confirm] [--role R] [--metadata JSON]
  users ban <id|email> [--duration 24h]
  users unban <id|email>
  users delete <id|email> [--soft]
  users export <id|email|phone> [--out FILE]   everything held about the user, as JSON (PDPL access request)
  users erase <id|email|phone>                 delete as the owner would: audit kept without personal data
  users invite <email> [--redirect-to URL]
  users link <type> <email> [--new-email E] [--password P] [--redirect-to URL]`;

const FLAGS = new Set(['--json', '--confirm', '--soft']);
const OPTIONS = new Set([
  '--page',
  '--per-page',
  '--filter',
  '--email',
  '--phone',
  '--password',
  '--password-hash',
  '--role',
  '--metadata',
  '--duration',
  '--redirect-to',
  '--new-email',
  '--out',
]);

export type ParsedArgs = { positional: string[]; flags: Set<string>; options: Map<string, string> };

export function parseCliArgs(argv: string[]): ParsedArgs {
  const out: ParsedArgs = { positional: [], flags: new Set(), options: new Map() };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (FLAGS.has(arg)) out.flags.add(arg);
    else if (OPTIONS.has(arg)) {
      const value = argv[++i];
      if (value === undefined) throw new UsageError(`${arg} needs a value`);
      out.options.set(arg, value);
    } else if (arg.startsWith('--')) throw new UsageError(`unknown option ${arg}`);
    else out.positional.push(arg);
  }
  return out;
}

function status(u: User, now: Date): string {
  if (u.deleted_at) return 'deleted';
  if (u.banned_until && Date.parse(u.banned_until) > now.getTime()) return `banned until ${u.banned_until}`;
  if (u.email_confirmed_at || u.phone_confirmed_at) return 'confirmed';
  return u.invited_at ? 'invited' : 'unconfirmed';
}

/** The human form of a user list: one aligned row per user. */
export function userTable(users: User[], now = new Date()): string {
  if (users.length === 0) return 'No users.';
  const rows = [
    ['ID', 'EMAIL', 'PHONE', 'CREATED', 'LAST SIGN-IN', 'STATUS'],
    ...users.map((u) => [
      u.id,
      u.email || '-',
      u.phone || '-',
      u.created_at?.slice(0, 19) ?? '-',
      u.last_sign_in_at?.slice(0, 19) ?? '-',
      status(u, now),
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] as string).length)));
  return rows
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i] as number))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

function userDetails(u: User, now = new Date()): string {
  const lines: Array<[string, string | undefined]> = [
    ['id', u.id],
    ['email', u.email || '-'],
    ['phone', u.phone || '-'],
    ['role', u.role],
    ['status', status(u, now)],
    ['created', u.created_at],
    ['last sign-in', u.last_sign_in_at],
    ['providers', (u.identities ?? []).map((i) => i.provider).join(', ') || '-'],
    ['factors', String(u.factors?.length ?? 0)],
    ['user_metadata', JSON.stringify(u.user_metadata)],
    ['app_metadata', JSON.stringify(u.app_metadata)],
  ];
  return lines.map(([k, v]) => `${k.padEnd(14)}${v ?? '-'}`).join('\n');
}

function need(value: string | undefined, what: string): string {
  if (!value) throw new UsageError(`missing ${what}`);
  return value;
}

/** Runs one command against `deps`; returns what to print (human text and the --json document). */
export async function runAdminCommand(
  deps: Deps,
  ctx: AdminContext,
  args: ParsedArgs,
): Promise<{ text: string; json: unknown }> {
  const [group, command, ...rest] = args.positional;
  if (group !== 'users' || !command) throw new UsageError(USAGE);
  const opt = (name: string) => args.options.get(name);
  const redirectTo = () =>
    resolveRedirect(opt('--redirect-to'), {
      siteUrl: deps.config.SITE_URL,
      allowList: deps.config.URI_ALLOW_LIST,
      allowLoopback: !deps.config.production,
    }).url;
  switch (command) {
    case 'list': {
      const { page, perPage } = parsePagination(opt('--page'), opt('--per-page'));
      const r = await listUsers(deps, { page, perPage, emailContains: opt('--filter') });
      return {
        text: `${userTable(r.users)}\n(page ${page} of ${Math.max(r.lastPage, 1)}, ${r.total} users)`,
        json: { users: r.users, total: r.total, page, per_page: perPage, last_page: r.lastPage },
      };
    }
    case 'show': {
      const user = await getUser(deps, await resolveUserRef(deps, need(rest[0], '<id|email>')));
      return { text: userDetails(user), json: user };
    }
    case 'create': {
      let metadata: Record<string, unknown> | undefined;
      const raw = opt('--metadata');
      if (raw !== undefined) {
        try {
          metadata = JSON.parse(raw);
        } catch {
          throw new UsageError('--metadata must be a JSON object');
        }
        if (!metadata || typeof metadata !== 'object' || Array.isArray(metadata))
          throw new UsageError('--metadata must be a JSON object');
      }
      const user = await createUser(deps, ctx, {
        email: opt('--email'),
        phone: opt('--phone'),
        password: opt('--password'),
        passwordHash: opt('--password-hash'),
        emailConfirm: args.flags.has('--confirm'),
        phoneConfirm: args.flags.has('--confirm'),
        role: opt('--role'),
        userMetadata: metadata,
      });
      return { text: `Created ${user.id} (${user.email || user.phone}).`, json: user };
    }
    case 'ban':
    case 'unban': {
      const id = await resolveUserRef(deps, need(rest[0], '<id|email>'));
      const banDuration = command === 'unban' ? 'none' : (opt('--duration') ?? '876000h');
      const user = await updateUserById(deps, ctx, id, { banDuration });
      return {
        text: command === 'unban' ? `Unbanned ${user.id}.` : `Banned ${user.id} until ${user.banned_until}.`,
        json: user,
      };
    }
    case 'delete': {
      const id = await resolveUserRef(deps, need(rest[0], '<id|email>'));
      const soft = args.flags.has('--soft');
      await deleteUser(deps, ctx, id, soft);
      return { text: `${soft ? 'Soft-deleted' : 'Deleted'} ${id}.`, json: { id, deleted: true, soft } };
    }
    case 'export': {
      const user = await findUserById(deps.db, await resolveUserRef(deps, need(rest[0], '<id|email|phone>')));
      if (!user) throw new AuthError('user_not_found');
      const data = await exportAccount(deps, user);
      const out = opt('--out');
      if (out === undefined) return { text: JSON.stringify(data, null, 2), json: data };
      // Personal data: readable by the operator's account only.
      try {
        await writeFile(out, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
      } catch (err) {
        const code = (err as { code?: string }).code;
        if (code === 'EEXIST') throw new UsageError(`${out} exists: an export never overwrites a file`);
        throw new UsageError(`cannot write ${out}: ${code ?? (err as Error).message}`);
      }
      return {
        text: `Wrote the export of ${user.id} to ${out}.`,
        json: { id: user.id, file: out },
      };
    }
    case 'erase': {
      const id = await resolveUserRef(deps, need(rest[0], '<id|email|phone>'));
      await eraseAccountFor(deps, id, adminActor(ctx.caller).actor);
      return { text: `Erased ${id}.`, json: { id, deleted: true } };
    }
    case 'invite': {
      const user = await inviteUser(deps, ctx, { email: need(rest[0], '<email>'), redirectTo: redirectTo() });
      return { text: `Invited ${user.email} (${user.id}).`, json: user };
    }
    case 'link': {
      const { user, properties } = await generateLink(deps, ctx, {
        type: need(rest[0], '<type>'),
        email: need(rest[1], '<email>'),
        password: opt('--password'),
        newEmail: opt('--new-email'),
        redirectTo: redirectTo(),
      });
      return {
        text: `${properties.action_link}\ncode: ${properties.email_otp}  (type ${properties.verification_type}, user ${user.id})`,
        json: { ...user, ...properties },
      };
    }
    default:
      throw new UsageError(USAGE);
  }
}

/** The CLI: parses, opens the database, runs one command, prints; resolves with the exit code. */
export async function runAdminCli(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  // Like every other CLI of the service (core/cli.ts): the usage on stdout, exit 0.
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(USAGE);
    return 0;
  }
  let args: ParsedArgs;
  let config: Config;
  try {
    args = parseCliArgs(argv);
    config = loadConfig(env);
  } catch (err) {
    if (err instanceof UsageError || err instanceof ConfigError) {
      console.error(err.message);
      return 1;
    }
    throw err;
  }
  const json = args.flags.has('--json');
  let database: Awaited<ReturnType<typeof openDatabase>>;
  try {
    database = await openDatabase(databaseOptions(config));
  } catch (err) {
    if (err instanceof DataDirLockedError) {
      console.error(`${err.message}\nNothing was changed. Stop the service and run the command again.`);
      return 2;
    }
    throw err;
  }
  const logger = createLogger('silent');
  const clock = () => new Date();
  const transport = config.SMTP_URL ? smtpTransport(config.SMTP_URL) : devMailboxTransport();
  const mail = createMailDispatcher({
    db: database.db,
    transport,
    from: config.MAIL_FROM,
    logger,
    clock,
    linkLifetimeMs: config.MAILER_OTP_EXP * 1000,
  });
  try {
    await migrate(database);
    await ensureSigningKey(database.db);
    const deps: Deps = {
      config,
      database,
      db: database.db,
      keys: new KeyStore(() => listSigningKeys(database.db), {
        configured: config.jwtKeys,
        audience: config.JWT_AUD,
      }),
      secrets: {
        refreshChain: await getOrCreateSecret(database.db, 'refresh_token_chain'),
        otp: await getOrCreateSecret(database.db, 'email_otp'),
      },
      logger,
      clock,
      mail,
      mailTemplates: await createMailTemplates(config),
      // The CLI sends no SMS.
      sms: noSms,
    };
    const ctx: AdminContext = {
      caller: { via: 'cli', osUser: safeUserName() },
      meta: { ip: 'cli', userAgent: 'namaa-admin-cli', requestId: 'cli' },
    };
    try {
      const out = await runAdminCommand(deps, ctx, args);
      console.log(json ? JSON.stringify(out.json, null, 2) : out.text);
      // An invitation goes out now (it is in the outbox either way; the service would retry it).
      await mail.idle();
      return 0;
    } catch (err) {
      if (err instanceof UsageError) {
        console.error(err.message);
        return 1;
      }
      if (err instanceof AuthError) {
        if (json)
          console.error(JSON.stringify({ error_code: err.code, msg: err.message, status: err.status }));
        else console.error(`${err.code}: ${err.message}`);
        return 1;
      }
      throw err;
    }
  } finally {
    await mail.stop();
    await database.close();
  }
}

function safeUserName(): string {
  try {
    return userInfo().username.slice(0, 64);
  } catch {
    return 'unknown';
  }
}

if (import.meta.main) {
  loadDotEnv();
  process.exitCode = await runAdminCli(process.argv.slice(2));
}
