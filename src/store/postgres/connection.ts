// The connection pool under a PostgreSQL store: `pg`, loaded here with import() and nowhere else,
// so that a CLI or a server without a postgres:// store never loads it; every query goes through
// `PgDatabase`, which counts round trips and turns PostgreSQL's failures into LiteErrors whose
// messages never carry the password.

import type { Pool, PoolClient, QueryResultRow } from 'pg';
import { LiteError } from '../../errors.js';
import { scrub, type PostgresLocation } from './location.js';

/** A statement: its text, with a name when it runs often (then each connection parses it once). */
export type Statement = string | { name: string; text: string };

/** Runs one statement and gives its rows: a pool's query, or a transaction's. */
export type Query = <R extends QueryResultRow>(statement: Statement, values?: readonly unknown[]) => Promise<R[]>;

export interface PoolOptions {
  /** Connections the pool may open (default 10). */
  poolSize?: number;
  /** How long opening a connection may take before IO_ERROR (default 10 s). */
  connectTimeoutMs?: number;
}

/** SQLSTATE classes and codes that say "try again": serialization failures, deadlocks, lock timeouts. */
const BUSY = /^(40001|40P01|55P03)$/;

export class PgDatabase {
  /** Statements sent so far, each one round trip to the server (for tests and the benchmark). */
  roundTrips = 0;

  /** `what` names the store in messages: "the task store", "the hub registry". */
  constructor(
    private readonly pool: Pool,
    readonly location: PostgresLocation,
    readonly what: string,
  ) {
    // An idle connection the server closed (a restart, a failover) is reported here; without a
    // listener the process would die. The pool drops it, and the next query opens another.
    pool.on('error', () => {});
  }

  /** One statement in a transaction of its own. */
  async query<R extends QueryResultRow>(doing: string, statement: Statement, values: readonly unknown[] = []): Promise<R[]> {
    this.roundTrips += 1;
    try {
      return (await this.pool.query<R>(config(statement, values))).rows;
    } catch (error) {
      throw this.failure(error, doing);
    }
  }

  /** Runs `run` inside BEGIN … COMMIT on one connection; ROLLBACK when it throws. */
  async transaction<T>(doing: string, run: (query: Query) => Promise<T>): Promise<T> {
    let client: PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw this.failure(error, doing);
    }
    const query: Query = async <R extends QueryResultRow>(statement: Statement, values: readonly unknown[] = []) => {
      this.roundTrips += 1;
      return (await client.query<R>(config(statement, values))).rows;
    };
    let broken: Error | undefined;
    try {
      await query('BEGIN');
      const result = await run(query);
      await query('COMMIT');
      return result;
    } catch (error) {
      this.roundTrips += 1;
      // A connection that cannot even roll back is closed, not handed to the next caller.
      await client.query('ROLLBACK').catch((rollback: Error) => (broken = rollback));
      throw this.failure(error, doing);
    } finally {
      client.release(broken);
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  /** PostgreSQL's and the network's failures as LiteErrors; a LiteError or a bug passes through. */
  failure(error: unknown, doing: string): unknown {
    if (error instanceof LiteError || !(error instanceof Error)) return error;
    const raw = (error as { code?: unknown }).code;
    const code = typeof raw === 'string' ? raw : undefined;
    const fromPg = code !== undefined || /connect|Connection|terminat|timeout/i.test(error.message);
    if (!fromPg) return error;
    // pg-pool hangs the failed connection on some errors; its parameters may hold the password.
    delete (error as { client?: unknown }).client;
    const shown = this.location.shown;
    const message = scrub(`${this.what} ${shown} could not ${doing}: ${error.message || code}`, this.location.secrets);
    const details = code === undefined ? { store: shown } : { store: shown, postgres: code };
    return new LiteError(code !== undefined && BUSY.test(code) ? 'LEDGER_BUSY' : 'IO_ERROR', message, details, { cause: error });
  }
}

/**
 * What `pg` sends. Without values a statement goes by the simple protocol, which takes several
 * statements in one text (migrations); with values, by the extended one, in one round trip.
 */
function config(statement: Statement, values: readonly unknown[]): { text: string; name?: string; values: unknown[] } {
  return typeof statement === 'string' ? { text: statement, values: [...values] } : { ...statement, values: [...values] };
}

/** The `pg` module, loaded on first use; IO_ERROR saying how to get it when it does not load. */
async function loadPg(): Promise<typeof import('pg')> {
  try {
    const module = (await import('pg')) as typeof import('pg') & { default?: typeof import('pg') };
    return module.default ?? module;
  } catch (cause) {
    throw new LiteError('IO_ERROR', 'a postgres:// store needs the pg package, which does not load here; reinstall a2a-lite (npm install a2a-lite)', {}, { cause });
  }
}

/** Opens a pool to `location` (no connection yet: the first query makes one). */
export async function openPool(location: PostgresLocation, what: string, options: PoolOptions = {}): Promise<PgDatabase> {
  const { Pool } = await loadPg();
  const pool = new Pool({
    connectionString: location.connectionString,
    ...(location.password === undefined ? {} : { password: location.password }),
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
    // Idle connections do not keep a finished program running.
    allowExitOnIdle: true,
  });
  return new PgDatabase(pool, location, what);
}
