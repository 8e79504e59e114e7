// PostgreSQL for the suites that need it: whether the local server answers (else the suite is
// skipped with a line in the summary, or fails under CI=true, see needs-tool.ts), and a database
// of the test file's own, created before its tests and dropped after them.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { needsTool } from './needs-tool.js';

/** The server the suites use: `$A2A_LITE_TEST_POSTGRES`, else the local one (trust auth). */
export const POSTGRES_ADMIN_URL = process.env.A2A_LITE_TEST_POSTGRES ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Why PostgreSQL cannot be used here, or undefined when it answers. */
const unavailable = await probe();

async function probe(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (error) {
    return `PostgreSQL does not answer at ${new URL(POSTGRES_ADMIN_URL).host} (${error instanceof Error ? error.message : String(error)}); start it with pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start`;
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Whether `suite` must be skipped for want of PostgreSQL; give the result to `describe.skipIf`.
 *
 * @example
 * const noPostgres = needsPostgres('the PostgreSQL task store (src/store/postgres)');
 * describe.skipIf(noPostgres)('PostgresTaskStore', () => { const db = useTestDatabase(); … });
 */
export function needsPostgres(suite: string): boolean {
  return needsTool(suite, unavailable === undefined, unavailable ?? '');
}

/** A name no other run uses: `<prefix>_<16 hex digits>`. */
export function uniqueName(prefix: string): string {
  return `${prefix}_${randomBytes(8).toString('hex')}`;
}

/** Runs one statement as the admin user, on the admin database or on `database`. */
export async function adminQuery(sql: string, values: unknown[] = [], database?: string): Promise<pg.QueryResult> {
  const url = new URL(POSTGRES_ADMIN_URL);
  if (database !== undefined) url.pathname = `/${database}`;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    return await client.query(sql, values);
  } finally {
    await client.end();
  }
}

/**
 * A database made for the enclosing `describe` (CREATE DATABASE a2a_test_<random>) and dropped,
 * with any connection still open to it, after its tests. `url()` is its URL; `name()` its name.
 */
export function useTestDatabase(): { url(options?: { schema?: string }): string; name(): string } {
  let name: string | undefined;
  beforeAll(async () => {
    name = uniqueName('a2a_test');
    await adminQuery(`CREATE DATABASE ${name}`);
  });
  afterAll(async () => {
    if (name !== undefined) await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });
  const current = (): string => {
    if (name === undefined) throw new Error('the test database exists only while the tests of its describe run');
    return name;
  };
  return {
    name: current,
    url(options = {}) {
      const url = new URL(POSTGRES_ADMIN_URL);
      url.pathname = `/${current()}`;
      if (options.schema !== undefined) url.searchParams.set('schema', options.schema);
      return url.toString();
    },
  };
}
