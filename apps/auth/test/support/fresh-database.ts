// Fresh PostgreSQL databases for tests and benchmarks: each run gets its own database on the shared
// server (so parallel test files, suites and benchmarks never see each other's rows) and drops it after.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export type FreshDatabase = { name: string; url: string; drop(): Promise<void> };

/** True when a PostgreSQL server answers at `baseUrl` within 2 s. */
export async function postgresReachable(baseUrl: string): Promise<boolean> {
  const c = new pg.Client({ connectionString: baseUrl, connectionTimeoutMillis: 2000 });
  try {
    await c.connect();
    await c.end();
    return true;
  } catch {
    return false;
  }
}

async function onServer(baseUrl: string, sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: baseUrl });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/** Creates `<prefix>_<random>` on the server of `baseUrl`; `drop()` removes it, closing its sessions. */
export async function createFreshDatabase(baseUrl: string, prefix = 'namaa_t'): Promise<FreshDatabase> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await onServer(baseUrl, `create database ${name}`);
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.href,
    drop: () => onServer(baseUrl, `drop database if exists ${name} with (force)`),
  };
}
