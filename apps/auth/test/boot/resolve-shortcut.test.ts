// The resolve shortcut for drizzle-orm (src/boot/resolve-shortcut.ts), in a fresh Node process as
// main.ts uses it: it is in use for drizzle's own files, and it resolves them to the very URLs
// Node's resolver gives, so a class reached through two entry points is one class (a second copy of
// a module would break drizzle's `is()` checks and every query built across entry points).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const shortcut = fileURLToPath(new URL('../../src/boot/resolve-shortcut.ts', import.meta.url));

function runChild(register: boolean) {
  const script = `
    const { registerResolveShortcut, resolveShortcutHits } = await import(${JSON.stringify(shortcut)});
    if (${register}) registerResolveShortcut();
    const { Table, is, sql } = await import('drizzle-orm');
    const { pgTable, text, PgTable, PgDialect } = await import('drizzle-orm/pg-core');
    await import('drizzle-orm/node-postgres');
    await import('drizzle-orm/pglite');
    const users = pgTable('users', { email: text('email') });
    const query = new PgDialect().sqlToQuery(sql\`select \${users.email} from \${users}\`);
    console.log(JSON.stringify({
      hits: resolveShortcutHits(),
      oneTable: users instanceof Table && is(users, PgTable),
      query: query.sql,
    }));`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: fileURLToPath(new URL('../..', import.meta.url)),
    encoding: 'utf8',
  });
  expect(child.stderr).not.toMatch(/Error/);
  expect(child.status).toBe(0);
  return JSON.parse(child.stdout.trim().split('\n').at(-1) as string);
}

it("resolves drizzle-orm's own files without Node's package look-up, to the same modules", () => {
  const withShortcut = runChild(true);
  const without = runChild(false);
  // drizzle's drivers and pg-core are hundreds of files: every relative import took the shortcut.
  expect(withShortcut.hits).toBeGreaterThan(200);
  expect(without.hits).toBe(0);
  expect(withShortcut.oneTable).toBe(true);
  expect(withShortcut.query).toBe(without.query);
  expect(withShortcut.query).toBe('select "users"."email" from "users"');
}, 60_000);
