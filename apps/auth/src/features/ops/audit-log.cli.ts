// Reads the audit log (sign-ups, sign-ins and their failures, refresh-token reuse, sign-outs,
// password and factor changes), newest first. Usage text: AUDIT_LOG_USAGE below
// (`npm run audit-log -- --help`). Named audit-log, not audit: `npm audit` is one typo away.
//
// It uses the server's environment (.env, DATABASE_URL or DATA_DIR). PostgreSQL can be read while the
// service runs; the embedded PGlite database is single-process, so stop the service first.
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { sql } from 'drizzle-orm';
import { loadConfig, loadDotEnv } from '../../config.ts';
import { runCli } from '../../core/cli.ts';
import { openMigratedDatabase } from '../../core/open-database.ts';
import { type DbOrTx, queryRows } from '../../db/client.ts';

export const AUDIT_LOG_USAGE = `Usage: npm run audit-log [-- options]   (node apps/auth/src/features/ops/audit-log.cli.ts)

Prints the audit log, newest first.
  --limit N        at most N entries (1 to 100000; default 50)
  --action a,b     only these actions (e.g. login,login_failed,token_revoked)
  --user U         only this user: an email address or a user id
  --since S        only entries since S: an ISO date, or 90m, 24h, 7d back from now
  --json           one JSON object per line instead of a table
  -h, --help       this text

       npm run audit-log -- export --from <iso> --to <iso> [--out FILE]

Writes every audit event of the window [from, to) as JSON lines, oldest first (for a breach
notification: docs/pdpl.md), to FILE (created 0600, never overwritten) or stdout; progress on stderr.

Uses the server's settings (.env, DATABASE_URL or DATA_DIR). With the embedded database (PGlite,
one process at a time) stop the service first; PostgreSQL can be read while it runs.`;

export type AuditQuery = { limit: number; actions?: string[]; user?: string; since?: Date };
export type AuditRow = {
  created_at: string;
  action: string;
  actor_id: string | null;
  email: string | null;
  ip_address: string | null;
  payload: Record<string, unknown>;
};

/** Parses "--since" values: an ISO date, or a duration back from now like 90m, 24h, 7d. */
export function parseSince(value: string, now = new Date()): Date {
  const rel = value.match(/^(\d+)\s*([mhd])$/);
  if (rel) {
    const unit = { m: 60_000, h: 3_600_000, d: 86_400_000 }[rel[2] as 'm' | 'h' | 'd'];
    return new Date(now.getTime() - Number(rel[1]) * unit);
  }
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw new Error(`--since: not a date or duration: ${value}`);
  return date;
}

export function parseArgs(argv: string[], now = new Date()): AuditQuery & { json: boolean } {
  const out: AuditQuery & { json: boolean } = { limit: 50, json: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${arg} needs a value`);
      return v;
    };
    if (arg === '--json') out.json = true;
    else if (arg === '--limit') {
      out.limit = Number(value());
      if (!Number.isInteger(out.limit) || out.limit < 1 || out.limit > 100_000)
        throw new Error('--limit: a whole number from 1 to 100000');
    } else if (arg === '--action')
      out.actions = value()
        .split(',')
        .map((a) => a.trim())
        .filter(Boolean);
    else if (arg === '--user') out.user = value().trim().toLowerCase();
    else if (arg === '--since') out.since = parseSince(value(), now);
    else throw new Error(`unknown option ${arg} (see --help)`);
  }
  return out;
}

/** The entries matching the query, newest first, with the actor's current email when known. */
export async function readAuditLog(db: DbOrTx, q: AuditQuery): Promise<AuditRow[]> {
  const where = [sql`true`];
  if (q.actions?.length)
    where.push(
      sql`a.action in (${sql.join(
        q.actions.map((x) => sql`${x}`),
        sql`, `,
      )})`,
    );
  if (q.since) where.push(sql`a.created_at >= ${q.since.toISOString()}::timestamptz`);
  if (q.user) {
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(q.user);
    where.push(uuid ? sql`a.actor_id = ${q.user}::uuid` : sql`u.email = ${q.user}`);
  }
  const rows = await queryRows<AuditRow & { created_at: string | Date }>(
    db,
    sql`select a.created_at, a.action, a.actor_id, u.email, a.ip_address, a.payload
        from audit_log_entries a left join users u on u.id = a.actor_id
        where ${sql.join(where, sql` and `)}
        order by a.created_at desc, a.id desc limit ${q.limit}`,
  );
  return rows.map((r) => ({ ...r, created_at: new Date(r.created_at).toISOString() }));
}

export function formatRows(rows: AuditRow[]): string {
  if (rows.length === 0) return 'No audit entries match.';
  const lines = rows.map((r) =>
    [
      r.created_at,
      r.action.padEnd(26),
      (r.email ?? r.actor_id ?? '-').padEnd(36),
      (r.ip_address ?? '-').padEnd(20),
      Object.keys(r.payload ?? {}).length ? JSON.stringify(r.payload) : '',
    ]
      .join('  ')
      .trimEnd(),
  );
  return [
    `${'time'.padEnd(24)}  ${'action'.padEnd(26)}  ${'user'.padEnd(36)}  ${'ip'.padEnd(20)}  details`,
    ...lines,
  ].join('\n');
}

export type ExportWindow = { from: Date; to: Date; out?: string };

function isoDate(name: string, value: string): Date {
  const date = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(date.getTime()))
    throw new Error(`${name}: not an ISO date or time: ${value}`);
  return date;
}

export function parseExportArgs(argv: string[]): ExportWindow {
  let from: Date | undefined;
  let to: Date | undefined;
  let out: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${arg} needs a value`);
      return v;
    };
    if (arg === '--from') from = isoDate('--from', value());
    else if (arg === '--to') to = isoDate('--to', value());
    else if (arg === '--out') out = value();
    else throw new Error(`export: unknown option ${arg} (see --help)`);
  }
  if (!from || !to) throw new Error('export needs --from and --to');
  if (to <= from) throw new Error('export: --to must be after --from');
  return { from, to, ...(out ? { out } : {}) };
}

/** One exported event: the row as stored, with the actor's current email when the account exists. */
export type ExportedEvent = AuditRow & { id: string };

/** How many rows one read of the export fetches (a window of months holds millions). */
export const EXPORT_PAGE = 5000;

/**
 * Every event of [from, to), oldest first, page by page (keyset on created_at, id: each page is an
 * index range read whatever the window's size, and memory holds one page).
 */
export async function* exportAuditWindow(
  db: DbOrTx,
  w: { from: Date; to: Date },
  pageSize = EXPORT_PAGE,
): AsyncGenerator<ExportedEvent[]> {
  let after: { at: string; id: string } | undefined;
  for (;;) {
    const rows = await queryRows<ExportedEvent & { created_at: string | Date; at: string }>(
      db,
      sql`select a.id, a.created_at, a.created_at::text as at, a.action, a.actor_id, u.email, a.ip_address, a.payload
          from audit_log_entries a left join users u on u.id = a.actor_id
          where a.created_at >= ${w.from.toISOString()}::timestamptz and a.created_at < ${w.to.toISOString()}::timestamptz
          ${after ? sql`and (a.created_at, a.id) > (${after.at}::timestamptz, ${after.id}::uuid)` : sql``}
          order by a.created_at, a.id limit ${pageSize}`,
    );
    if (rows.length === 0) return;
    const last = rows[rows.length - 1] as { at: string; id: string };
    after = { at: last.at, id: last.id };
    yield rows.map(({ at: _at, ...r }) => ({ ...r, created_at: new Date(r.created_at).toISOString() }));
    if (rows.length < pageSize) return;
  }
}

async function countWindow(db: DbOrTx, w: { from: Date; to: Date }): Promise<number> {
  const [row] = await queryRows<{ n: number | string }>(
    db,
    sql`select count(*) as n from audit_log_entries
        where created_at >= ${w.from.toISOString()}::timestamptz and created_at < ${w.to.toISOString()}::timestamptz`,
  );
  return Number(row?.n ?? 0);
}

async function runExport(db: DbOrTx, w: ExportWindow): Promise<number> {
  const total = await countWindow(db, w);
  const file = w.out ? createWriteStream(w.out, { mode: 0o600, flags: 'wx' }) : undefined;
  if (file) await once(file, 'open');
  const sink = file ?? process.stdout;
  let written = 0;
  const started = Date.now();
  console.error(`Exporting ${total} audit events from ${w.from.toISOString()} to ${w.to.toISOString()}`);
  try {
    for await (const page of exportAuditWindow(db, w)) {
      const chunk = `${page.map((r) => JSON.stringify(r)).join('\n')}\n`;
      if (!sink.write(chunk)) await once(sink, 'drain');
      written += page.length;
      if (total > EXPORT_PAGE)
        console.error(`  ${written} / ${total} (${Math.round((written * 100) / Math.max(total, 1))} %)`);
    }
  } finally {
    if (file)
      await new Promise<void>((resolve, reject) =>
        file.end((err?: Error | null) => (err ? reject(err) : resolve())),
      );
  }
  console.error(
    `Exported ${written} events in ${((Date.now() - started) / 1000).toFixed(1)} s${w.out ? ` to ${w.out}` : ''}`,
  );
  return 0;
}

export async function runAuditLog(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  return runCli(AUDIT_LOG_USAGE, argv, async () => {
    if (argv[0] === 'export') {
      let window: ExportWindow;
      try {
        window = parseExportArgs(argv.slice(1));
      } catch (err) {
        console.error((err as Error).message);
        return 1;
      }
      const database = await openMigratedDatabase(loadConfig(env));
      try {
        return await runExport(database.db, window);
      } finally {
        await database.close();
      }
    }
    let query: ReturnType<typeof parseArgs>;
    try {
      query = parseArgs(argv);
    } catch (err) {
      console.error((err as Error).message);
      return 1;
    }
    const database = await openMigratedDatabase(loadConfig(env));
    try {
      const rows = await readAuditLog(database.db, query);
      if (query.json) for (const r of rows) console.log(JSON.stringify(r));
      else console.log(formatRows(rows));
      return 0;
    } finally {
      await database.close();
    }
  });
}

if (import.meta.main) {
  loadDotEnv();
  process.exitCode = await runAuditLog(process.argv.slice(2));
}
