// The cluster's directory in PostgreSQL, beside the registry in the hub's schema: instances with
// their leases, the link each connected agent holds to one of them, and the leases of jobs. Every
// time is the database's clock, so that instances on machines whose clocks differ agree.

import type { PgDatabase } from '../../store/postgres/connection.js';
import type { LinkKind } from '../relay.js';
import type { AgentLink, HubDirectory } from './directory.js';

/** The tables, added to the hub's schema by its second migration (postgres-hub-store.ts). */
export const DIRECTORY_MIGRATION = `
  CREATE TABLE {schema}.hub_instances (
    id text PRIMARY KEY,
    expires_at timestamptz NOT NULL
  );
  CREATE SEQUENCE {schema}.hub_link_epochs;
  CREATE TABLE {schema}.hub_links (
    agent_id text PRIMARY KEY,
    instance text NOT NULL REFERENCES {schema}.hub_instances (id) ON DELETE CASCADE,
    kind text NOT NULL,
    epoch bigint NOT NULL
  );
  CREATE INDEX ON {schema}.hub_links (instance);
  CREATE TABLE {schema}.hub_leases (
    job text PRIMARY KEY,
    holder text NOT NULL,
    expires_at timestamptz NOT NULL
  );`;

const LATER = (param: string): string => `clock_timestamp() + ${param}::int * interval '1 millisecond'`;

export class PostgresHubDirectory implements HubDirectory {
  constructor(
    private readonly db: PgDatabase,
    private readonly schema: string,
  ) {}

  async renew(instance: string, leaseMs: number): Promise<{ fresh: boolean; alive: string[] }> {
    const s = this.schema;
    // A data-changing WITH runs whether or not it is read; the outer SELECT sees the table as it
    // was before it, so this instance is added to the list by hand.
    const rows = await this.db.query<{ fresh: boolean; others: string[] }>(
      'renew the lease of a hub instance',
      `WITH old AS (SELECT expires_at FROM ${s}.hub_instances WHERE id = $1),
       renewed AS (
         INSERT INTO ${s}.hub_instances (id, expires_at) VALUES ($1, ${LATER('$2')})
         ON CONFLICT (id) DO UPDATE SET expires_at = excluded.expires_at RETURNING 1
       )
       SELECT NOT EXISTS (SELECT 1 FROM old WHERE expires_at > clock_timestamp()) AS fresh,
              array(SELECT id FROM ${s}.hub_instances WHERE expires_at > clock_timestamp() AND id <> $1 ORDER BY id) AS others`,
      [instance, leaseMs],
    );
    const row = rows[0] as { fresh: boolean; others: string[] };
    return { fresh: row.fresh, alive: [instance, ...row.others] };
  }

  async leave(instance: string): Promise<void> {
    await this.db.query('end the lease of a hub instance', `DELETE FROM ${this.schema}.hub_instances WHERE id = $1`, [instance]);
  }

  async link(agentId: string, instance: string, kind: LinkKind, takeOver = true): Promise<number | undefined> {
    const s = this.schema;
    const unlessHeld = takeOver ? '' : `WHERE ${s}.hub_links.instance = excluded.instance OR NOT EXISTS (SELECT 1 FROM ${s}.hub_instances i WHERE i.id = ${s}.hub_links.instance AND i.expires_at > clock_timestamp())`;
    const rows = await this.db.query<{ epoch: string }>(
      'record the link of an agent',
      `INSERT INTO ${s}.hub_links (agent_id, instance, kind, epoch) VALUES ($1, $2, $3, nextval('${s}.hub_link_epochs'))
       ON CONFLICT (agent_id) DO UPDATE SET instance = excluded.instance, kind = excluded.kind, epoch = excluded.epoch ${unlessHeld}
       RETURNING epoch`,
      [agentId, instance, kind],
    );
    return rows[0] === undefined ? undefined : Number(rows[0].epoch);
  }

  async unlink(agentId: string, instance: string): Promise<void> {
    await this.db.query('drop the link of an agent', `DELETE FROM ${this.schema}.hub_links WHERE agent_id = $1 AND instance = $2`, [agentId, instance]);
  }

  async linkOf(agentId: string): Promise<AgentLink | undefined> {
    return (await this.read('AND l.agent_id = $1', [agentId]))[0];
  }

  links(): Promise<AgentLink[]> {
    return this.read('', []);
  }

  async lead(job: string, instance: string, leaseMs: number): Promise<boolean> {
    const s = this.schema;
    const rows = await this.db.query(
      'take the lease of a job',
      `INSERT INTO ${s}.hub_leases (job, holder, expires_at) VALUES ($1, $2, ${LATER('$3')})
       ON CONFLICT (job) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
       WHERE ${s}.hub_leases.holder = excluded.holder OR ${s}.hub_leases.expires_at <= clock_timestamp()
       RETURNING 1`,
      [job, instance, leaseMs],
    );
    return rows.length > 0;
  }

  async sweep(afterMs: number): Promise<void> {
    await this.db.query('forget hub instances long gone', `DELETE FROM ${this.schema}.hub_instances WHERE expires_at < clock_timestamp() - $1::int * interval '1 millisecond'`, [afterMs]);
  }

  private async read(where: string, values: unknown[]): Promise<AgentLink[]> {
    const s = this.schema;
    const rows = await this.db.query<{ agent_id: string; instance: string; kind: LinkKind; epoch: string }>(
      'read the links of agents',
      `SELECT l.agent_id, l.instance, l.kind, l.epoch FROM ${s}.hub_links l JOIN ${s}.hub_instances i ON i.id = l.instance
       WHERE i.expires_at > clock_timestamp() ${where}`,
      values,
    );
    return rows.map((row) => ({ agentId: row.agent_id, instance: row.instance, kind: row.kind, epoch: Number(row.epoch) }));
  }
}
