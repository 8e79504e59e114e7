// What replicas sharing the PostgreSQL store agree on through it (see ../cluster-store.ts):
// leases of replicas and of leaders, kept on the database's clock so that the replicas' own
// clocks never have to agree; idempotency key claims, which the primary key decides; and the
// ending of a dead replica's tasks (and the giving back of the keys it claimed for tasks it never
// saved), which the locks on their rows give to exactly one survivor.
// The outbox claims are in push-store.ts.

import { LiteError } from '../../errors.js';
import type { Task } from '../../model/task.js';
import type { KeyClaim } from '../cluster-store.js';
import type { PgDatabase, Statement } from './connection.js';
import { failUnfinished } from './interrupted.js';
import { checkId, checkName, indexKey, key, unkey } from './keys.js';
import { ownerScope } from './writes.js';

/** `$n` milliseconds from now on the database's clock. */
const fromNow = (n: number) => `now() + $${n} * interval '1 millisecond'`;

/** Claims tried before giving up: a claim only loses its race to a key being taken or given back. */
const CLAIM_TRIES = 5;

export class PgCluster {
  /** `write` is the batch statement (writes.ts); `now` the clock of the store's timestamps. */
  constructor(
    private readonly db: PgDatabase,
    private readonly schema: string,
    private readonly write: Statement,
    private readonly now: () => Date,
  ) {}

  async heartbeat(replica: string, leaseMs: number): Promise<void> {
    await this.db.query(
      'renew a replica lease',
      `INSERT INTO ${this.schema}.replicas (name, expires_at) VALUES ($1, ${fromNow(2)})
       ON CONFLICT (name) DO UPDATE SET expires_at = excluded.expires_at`,
      [checkName(replica, 'replica'), lease(leaseMs)],
    );
  }

  async deadReplicas(): Promise<string[]> {
    const rows = await this.db.query<{ name: string }>('find dead replicas', `SELECT name FROM ${this.schema}.replicas WHERE expires_at < now() ORDER BY name`);
    return rows.map((row) => row.name);
  }

  /**
   * Forgets the replica, gives back the keys it claimed for tasks it never saved, and fails its
   * unfinished tasks, in one transaction. The tasks are locked as they are read: a second
   * survivor racing for the same replica waits for the first, then finds them ended and fails
   * nothing.
   */
  async failTasksOf(replica: string, reason: string): Promise<Task[]> {
    checkName(replica, 'replica');
    return this.db.transaction('end the tasks of a dead replica', async (query) => {
      await query(
        `WITH gone AS (DELETE FROM ${this.schema}.replicas WHERE name = $1)
         DELETE FROM ${this.schema}.idempotency_keys k WHERE k.claimed_by = $1
           AND NOT EXISTS (SELECT 1 FROM ${this.schema}.tasks t WHERE t.id = k.task_id)`,
        [replica],
      );
      return failUnfinished(query, this.schema, this.write, { where: 't.runner = $1', values: [replica] }, reason, this.now().toISOString());
    });
  }

  async runnerOf(taskId: string): Promise<string | undefined> {
    const rows = await this.db.query<{ runner: string | null }>('read the runner of a task', `SELECT runner FROM ${this.schema}.tasks WHERE id = $1`, [key(taskId)]);
    return rows[0]?.runner ?? undefined;
  }

  /**
   * Inserts the key, or reads who holds it: one statement, whose insert waits for a rival's
   * uncommitted insert of the same key and then yields. The read shares the statement's
   * snapshot, taken before the rival committed, so it may find nothing: then ask again.
   */
  async claimKey(given: string, owner: string | undefined, fingerprint: string, taskId: string, replica: string): Promise<KeyClaim> {
    checkId(taskId, 'task id');
    const values = [ownerScope(owner), indexKey(given), fingerprint, key(taskId), this.now().toISOString(), checkName(replica, 'replica')];
    for (let tries = 0; tries < CLAIM_TRIES; tries += 1) {
      const rows = await this.db.query<{ won: boolean; task_id: Buffer | null; fingerprint: string | null }>(
        'claim an idempotency key',
        {
          name: 'a2a_lite_claim_key',
          text: `WITH claimed AS (
                   INSERT INTO ${this.schema}.idempotency_keys (owner, key, fingerprint, task_id, created_at, claimed_by) VALUES ($1, $2, $3, $4, $5, $6)
                   ON CONFLICT (owner, key) DO NOTHING RETURNING 1
                 )
                 SELECT true AS won, NULL::bytea AS task_id, NULL::text AS fingerprint FROM claimed
                 UNION ALL
                 SELECT false, task_id, fingerprint FROM ${this.schema}.idempotency_keys
                 WHERE owner = $1 AND key = $2 AND NOT EXISTS (SELECT 1 FROM claimed)`,
        },
        values,
      );
      const row = rows[0];
      if (row === undefined) continue;
      if (row.won) return { won: true };
      return { won: false, taskId: row.task_id === null ? undefined : unkey(row.task_id), fingerprint: row.fingerprint ?? '' };
    }
    throw new LiteError('LEDGER_BUSY', `${this.db.what} ${this.db.location.shown} could not claim an idempotency key: it was taken and given back ${CLAIM_TRIES} times`, { store: this.db.location.shown });
  }

  async releaseKey(given: string, owner: string | undefined, taskId: string): Promise<void> {
    await this.db.query(
      'release an idempotency key',
      `DELETE FROM ${this.schema}.idempotency_keys WHERE owner = $1 AND key = $2 AND task_id = $3`,
      [ownerScope(owner), indexKey(given), key(taskId)],
    );
  }

  /** Takes the role when it has no leader or the leader's lease has passed; renews one's own. */
  async lead(role: string, replica: string, leaseMs: number): Promise<boolean> {
    const rows = await this.db.query(
      'take the lead',
      `INSERT INTO ${this.schema}.leaders (role, replica, expires_at) VALUES ($1, $2, ${fromNow(3)})
       ON CONFLICT (role) DO UPDATE SET replica = excluded.replica, expires_at = excluded.expires_at
       WHERE leaders.replica = excluded.replica OR leaders.expires_at < now()
       RETURNING 1`,
      [checkName(role, 'role'), checkName(replica, 'replica'), lease(leaseMs)],
    );
    return rows.length > 0;
  }
}

/** A lease length in whole milliseconds, never negative. */
function lease(ms: number): number {
  return Number.isFinite(ms) ? Math.max(0, Math.round(ms)) : 0;
}
