import { audit } from '../../db/audit.repo.ts';
import type { Db } from '../../db/client.ts';
import { type ImportCounts, insertImportedBatch } from '../../db/import.repo.ts';
import type { Mapped } from './map-rows.ts';

const BATCH = 500;

/**
 * Writes the mapped rows in batches of 500 users, each batch one transaction with its identities,
 * factors (a recovery-code factor with its set and codes) and one audit row. A user already here (id, email or phone) is skipped with its rows.
 */
export async function importMapped(db: Db, mapped: Mapped): Promise<ImportCounts> {
  const totals: ImportCounts = { users: 0, skippedUsers: [], identities: 0, factors: 0, recoveryCodes: 0 };
  for (let i = 0; i < mapped.users.length; i += BATCH) {
    const users = mapped.users.slice(i, i + BATCH);
    const ids = new Set(users.map((u) => u.id));
    const counts = await db.transaction(async (tx) => {
      const c = await insertImportedBatch(tx, {
        users,
        identities: mapped.identities.filter((x) => ids.has(x.userId)),
        factors: mapped.factors.filter((x) => ids.has(x.userId)),
        recoveryCodeSets: mapped.recoveryCodeSets,
        recoveryCodes: mapped.recoveryCodes,
      });
      if (c.users > 0)
        await audit(tx, 'users_imported', null, null, {
          actor: 'cli:import',
          users: c.users,
          identities: c.identities,
          factors: c.factors,
          recovery_codes: c.recoveryCodes,
        });
      return c;
    });
    totals.users += counts.users;
    totals.skippedUsers.push(...counts.skippedUsers);
    totals.identities += counts.identities;
    totals.factors += counts.factors;
    totals.recoveryCodes += counts.recoveryCodes;
  }
  return totals;
}
