/**
 * Child process of pglite-create.ts: creates the PGlite database of the data directory argv[2]
 * (initdb, in <argv[2]>/pglite), applies every migration, closes it cleanly and exits.
 * argv[3]: `durable` (as the service opens it, pglite-durable.ts) or `fast`; argv[4]: the
 * namespace; argv[5]: shared_buffers.
 */
import { openDatabase } from './client.ts';
import { migrate } from './migrate.ts';

const [dataDir, mode, namespace, sharedBuffers] = process.argv.slice(2);
if (!dataDir || !namespace || !sharedBuffers)
  throw new Error('usage: pglite-create.child.ts <dataDir> durable|fast <namespace> <shared_buffers>');
const database = await openDatabase({
  dataDir,
  fsync: mode === 'durable',
  namespace,
  sharedBuffers,
  createInProcess: true,
});
try {
  await migrate(database);
} finally {
  await database.close();
}
