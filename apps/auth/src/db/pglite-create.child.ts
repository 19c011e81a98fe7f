/**
 * Child process of pglite-create.ts: creates a PGlite database in argv[2] (initdb), closes it
 * cleanly and exits. `durable` creates it as the service opens it (pglite-durable.ts: fsync on).
 */
import { PGlite } from '@electric-sql/pglite';
import { openDurablePglite } from './pglite-durable.ts';

const [dir, mode] = process.argv.slice(2);
if (!dir) throw new Error('usage: pglite-create.child.ts <dir> durable|fast');
const db = mode === 'durable' ? await openDurablePglite(dir) : await PGlite.create({ dataDir: dir });
await db.close();
