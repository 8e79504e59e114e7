// The push half of the PostgreSQL store: webhook configs and the outbox of deliveries still to be
// made, in the same schema as the tasks; and the claims by which one replica of several takes a
// delivery to send (FOR UPDATE SKIP LOCKED: two replicas asking at once get different ones).

import type { PushConfig } from '../../model/push-config.js';
import type { NewDelivery, PendingDelivery, PushStore } from '../push-store.js';
import type { PgDatabase } from './connection.js';
import { checkId, checkName, key, unkey } from './keys.js';

interface OutboxRow {
  seq: string;
  task_id: Buffer;
  config_id: Buffer;
  body: string;
  attempts: number;
}

export class PgPushStore implements PushStore {
  constructor(
    private readonly db: PgDatabase,
    private readonly schema: string,
  ) {}

  async savePushConfig(config: PushConfig): Promise<void> {
    checkId(config.taskId, 'task id');
    checkId(config.id, 'push config id');
    await this.db.query(
      'save a push config',
      `INSERT INTO ${this.schema}.push_configs (task_id, id, json) VALUES ($1, $2, $3)
       ON CONFLICT (task_id, id) DO UPDATE SET json = excluded.json`,
      [key(config.taskId), key(config.id), JSON.stringify(config)],
    );
  }

  async getPushConfig(taskId: string, id: string): Promise<PushConfig | undefined> {
    const rows = await this.db.query<{ json: string }>('read a push config', `SELECT json FROM ${this.schema}.push_configs WHERE task_id = $1 AND id = $2`, [key(taskId), key(id)]);
    return rows[0] === undefined ? undefined : (JSON.parse(rows[0].json) as PushConfig);
  }

  async listPushConfigs(taskId: string): Promise<PushConfig[]> {
    const rows = await this.db.query<{ json: string }>('list push configs', `SELECT json FROM ${this.schema}.push_configs WHERE task_id = $1 ORDER BY position`, [key(taskId)]);
    return rows.map((row) => JSON.parse(row.json) as PushConfig);
  }

  async deletePushConfig(taskId: string, id: string): Promise<boolean> {
    const rows = await this.db.query<{ deleted: string }>(
      'delete a push config',
      `WITH deliveries AS (DELETE FROM ${this.schema}.push_outbox WHERE task_id = $1 AND config_id = $2),
            config AS (DELETE FROM ${this.schema}.push_configs WHERE task_id = $1 AND id = $2 RETURNING 1)
       SELECT count(*) AS deleted FROM config`,
      [key(taskId), key(id)],
    );
    return Number(rows[0]?.deleted ?? 0) > 0;
  }

  async addDeliveries(deliveries: readonly NewDelivery[]): Promise<PendingDelivery[]> {
    if (deliveries.length === 0) return [];
    for (const d of deliveries) {
      checkId(d.taskId, 'task id');
      checkId(d.configId, 'push config id');
    }
    const rows = await this.db.query<{ seq: string }>(
      'queue push deliveries',
      // Numbered in the order given: the identity is drawn row by row as the ordered select yields them.
      `INSERT INTO ${this.schema}.push_outbox (task_id, config_id, body)
       SELECT task_id, config_id, body FROM unnest($1::bytea[], $2::bytea[], $3::text[]) WITH ORDINALITY AS d (task_id, config_id, body, i) ORDER BY i
       RETURNING seq`,
      [deliveries.map((d) => key(d.taskId)), deliveries.map((d) => key(d.configId)), deliveries.map((d) => d.body)],
    );
    const seqs = rows.map((row) => Number(row.seq)).sort((a, b) => a - b);
    return deliveries.map((d, i) => ({ ...d, seq: seqs[i]!, attempts: 0 }));
  }

  async pendingDeliveries(): Promise<PendingDelivery[]> {
    const rows = await this.db.query<OutboxRow>('read the push outbox', `SELECT seq, task_id, config_id, body, attempts FROM ${this.schema}.push_outbox ORDER BY seq`);
    return rows.map(deliveryOf);
  }

  async recordAttempt(seq: number, attempts: number): Promise<void> {
    await this.db.query('record a push attempt', `UPDATE ${this.schema}.push_outbox SET attempts = $1 WHERE seq = $2`, [attempts, seq]);
  }

  async removeDelivery(seq: number): Promise<void> {
    await this.db.query('remove a push delivery', `DELETE FROM ${this.schema}.push_outbox WHERE seq = $1`, [seq]);
  }

  /**
   * Up to `limit` deliveries by seq that no other replica holds under an unexpired claim, now
   * claimed by `replica` for `leaseMs` (its own earlier claims are renewed and handed back too;
   * those past the first `limit` are renewed only). Rows another replica is claiming at this
   * instant are skipped, not waited for.
   */
  async claimDeliveries(replica: string, limit: number, leaseMs: number): Promise<PendingDelivery[]> {
    checkName(replica, 'replica');
    if (limit <= 0) return [];
    const rows = await this.db.query<OutboxRow>(
      'claim push deliveries',
      {
        name: 'a2a_lite_claim_deliveries',
        text: `WITH free AS (
                 SELECT seq FROM ${this.schema}.push_outbox
                 WHERE claimed_by IS NULL OR claim_expires < now() OR claimed_by = $1
                 ORDER BY seq LIMIT $2 FOR UPDATE SKIP LOCKED
               ), renewed AS (
                 -- Skipping locked rows, as free does, never waits (nor deadlocks) on a rival taking
                 -- a claim that ran out; a row this replica is writing is renewed at the next sweep.
                 UPDATE ${this.schema}.push_outbox SET claim_expires = now() + $3 * interval '1 millisecond'
                 WHERE seq IN (
                   SELECT seq FROM ${this.schema}.push_outbox WHERE claimed_by = $1 AND seq NOT IN (SELECT seq FROM free)
                   FOR UPDATE SKIP LOCKED
                 )
               )
               UPDATE ${this.schema}.push_outbox o SET claimed_by = $1, claim_expires = now() + $3 * interval '1 millisecond'
               FROM free WHERE o.seq = free.seq
               RETURNING o.seq, o.task_id, o.config_id, o.body, o.attempts`,
      },
      [replica, limit, Math.max(0, Math.round(leaseMs))],
    );
    return rows.map(deliveryOf).sort((a, b) => a.seq - b.seq);
  }
}

function deliveryOf(row: OutboxRow): PendingDelivery {
  return { seq: Number(row.seq), taskId: unkey(row.task_id), configId: unkey(row.config_id), body: row.body, attempts: row.attempts };
}
