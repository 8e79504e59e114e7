// The push half of the SQLite store: webhook configs and the outbox of deliveries still to be
// made, in the same file and on the same connection as the tasks (see task-store.ts).

import type { PushConfig } from '../../model/push-config.js';
import type { NewDelivery, PendingDelivery, PushStore } from '../push-store.js';
import type { SqliteDatabase, SqliteStatement } from './driver.js';
import { key, unkey } from './rows.js';

type Statement = SqliteStatement;

/** Runs `run`, reporting a failure as what the store could not do. */
export type Guard = <T>(doing: string, run: () => T) => T;

export class SqlitePushStore implements PushStore {
  private readonly statements: Record<
    'saveConfig' | 'getConfig' | 'listConfigs' | 'deleteConfig' | 'deleteDeliveries' | 'addDelivery' | 'pending' | 'attempt' | 'remove',
    Statement
  >;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly guard: Guard,
  ) {
    this.statements = {
      saveConfig: db.prepare(
        `INSERT INTO push_configs (task_id, id, json) VALUES (@taskId, @id, @json)
         ON CONFLICT (task_id, id) DO UPDATE SET json = excluded.json`,
      ),
      getConfig: db.prepare('SELECT json FROM push_configs WHERE task_id = ? AND id = ?').pluck(),
      listConfigs: db.prepare('SELECT json FROM push_configs WHERE task_id = ? ORDER BY rowid').pluck(),
      deleteConfig: db.prepare('DELETE FROM push_configs WHERE task_id = ? AND id = ?'),
      deleteDeliveries: db.prepare('DELETE FROM push_outbox WHERE task_id = ? AND config_id = ?'),
      addDelivery: db.prepare('INSERT INTO push_outbox (task_id, config_id, body) VALUES (?, ?, ?)'),
      pending: db.prepare('SELECT seq, task_id AS taskId, config_id AS configId, body, attempts FROM push_outbox ORDER BY seq'),
      attempt: db.prepare('UPDATE push_outbox SET attempts = ? WHERE seq = ?'),
      remove: db.prepare('DELETE FROM push_outbox WHERE seq = ?'),
    };
  }

  async savePushConfig(config: PushConfig): Promise<void> {
    this.guard('save a push config', () => this.statements.saveConfig.run({ taskId: key(config.taskId), id: key(config.id), json: JSON.stringify(config) }));
  }

  async getPushConfig(taskId: string, id: string): Promise<PushConfig | undefined> {
    const json = this.guard('read a push config', () => this.statements.getConfig.get(key(taskId), key(id)) as string | undefined);
    return json === undefined ? undefined : (JSON.parse(json) as PushConfig);
  }

  async listPushConfigs(taskId: string): Promise<PushConfig[]> {
    const rows = this.guard('list push configs', () => this.statements.listConfigs.all(key(taskId)) as string[]);
    return rows.map((json) => JSON.parse(json) as PushConfig);
  }

  async deletePushConfig(taskId: string, id: string): Promise<boolean> {
    return this.guard('delete a push config', () =>
      this.db.transaction(() => {
        this.statements.deleteDeliveries.run(key(taskId), key(id));
        return this.statements.deleteConfig.run(key(taskId), key(id)).changes > 0;
      })(),
    );
  }

  async addDeliveries(deliveries: readonly NewDelivery[]): Promise<PendingDelivery[]> {
    return this.guard('queue push deliveries', () =>
      this.db.transaction(() =>
        deliveries.map((d) => {
          const { lastInsertRowid } = this.statements.addDelivery.run(key(d.taskId), key(d.configId), d.body);
          return { ...d, seq: Number(lastInsertRowid), attempts: 0 };
        }),
      )(),
    );
  }

  async pendingDeliveries(): Promise<PendingDelivery[]> {
    const rows = this.guard('read the push outbox', () => this.statements.pending.all() as (Omit<PendingDelivery, 'taskId' | 'configId'> & { taskId: Buffer; configId: Buffer })[]);
    return rows.map((row) => ({ ...row, taskId: unkey(row.taskId), configId: unkey(row.configId) }));
  }

  async recordAttempt(seq: number, attempts: number): Promise<void> {
    this.guard('record a push attempt', () => this.statements.attempt.run(attempts, seq));
  }

  async removeDelivery(seq: number): Promise<void> {
    this.guard('remove a push delivery', () => this.statements.remove.run(seq));
  }
}
