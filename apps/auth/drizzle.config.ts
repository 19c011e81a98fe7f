import { defineConfig } from 'drizzle-kit';

// `npm run db:generate -w apps/auth` writes a new migration after a change to src/db/schema.ts.
// The same SQL migrations run on PGlite and on PostgreSQL at start-up (src/db/migrate.ts).
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/schema.ts',
  out: './src/db/migrations',
});
