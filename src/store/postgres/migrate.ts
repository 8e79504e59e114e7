// Bringing a PostgreSQL store's schema up to date: numbered migrations counted in a
// `schema_version` table of the store's own schema, run under an advisory lock so that two
// replicas starting at once do not both migrate, and refused when a newer a2a-lite has been there.

import { LiteError } from '../../errors.js';
import type { PgDatabase, Query } from './connection.js';

/**
 * Creates `schema` if needed and runs the migrations it lacks. Migration n (1-based) takes the
 * schema from version n-1 to n, with `{schema}` standing for the schema's name; never edit one
 * that shipped. Throws LEDGER_CORRUPT naming both versions when the schema is newer than
 * `migrations`, and IO_ERROR when the database cannot be reached.
 */
export async function migrate(db: PgDatabase, schema: string, migrations: readonly string[]): Promise<void> {
  await db.transaction('be opened', async (query) => {
    // Held until COMMIT: a second replica waits here, then finds the schema up to date.
    await query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`a2a-lite schema ${schema}`]);
    await query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await query(`CREATE TABLE IF NOT EXISTS ${schema}.schema_version (
      single boolean PRIMARY KEY DEFAULT true CHECK (single),
      version integer NOT NULL
    )`);
    const version = await versionOf(query, schema);
    if (version > migrations.length) {
      throw new LiteError(
        'LEDGER_CORRUPT',
        `${db.what} ${db.location.shown} (schema "${schema}") has schema version ${version}, newer than this a2a-lite reads (${migrations.length}); upgrade a2a-lite`,
        { store: db.location.shown, schema, version, supported: migrations.length },
      );
    }
    for (const step of migrations.slice(version)) await query(step.replaceAll('{schema}', schema));
    if (version < migrations.length) {
      await query(`INSERT INTO ${schema}.schema_version (version) VALUES (${migrations.length}) ON CONFLICT (single) DO UPDATE SET version = excluded.version`);
    }
  });
}

async function versionOf(query: Query, schema: string): Promise<number> {
  const rows = await query<{ version: number }>(`SELECT version FROM ${schema}.schema_version`);
  return rows[0]?.version ?? 0;
}
