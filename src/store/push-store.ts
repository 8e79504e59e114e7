// Where push notification configs and the outbox of deliveries still to be made are kept, so
// that both survive a restart. Both task stores implement it beside TaskStore: the memory store
// for tests and throwaway runs, and SQLite, with two more tables in the same file.

import type { PushConfig } from '../model/push-config.js';

/** One event's body, to be posted to one config's webhook. */
export interface NewDelivery {
  taskId: string;
  configId: string;
  body: string;
}

/** A delivery in the outbox. `seq` grows with every delivery added: it is the order to send in. */
export interface PendingDelivery extends NewDelivery {
  seq: number;
  /** Attempts that failed so far. */
  attempts: number;
}

/**
 * Push configs by task, and the outbox. Like TaskStore, every method returns copies.
 *
 * Kept apart from TaskStore so that a store of tasks alone is still a whole TaskStore, and the
 * push sender depends on no more than it uses; the task stores implement both, so that tasks,
 * configs and outbox share one file and one close.
 */
export interface PushStore {
  /** Saves a config, replacing the task's config with the same id. */
  savePushConfig(config: PushConfig): Promise<void>;
  getPushConfig(taskId: string, id: string): Promise<PushConfig | undefined>;
  /** The task's configs, oldest first (a replaced config keeps its place). */
  listPushConfigs(taskId: string): Promise<PushConfig[]>;
  /** Deletes a config and its pending deliveries; false when there was no such config. */
  deletePushConfig(taskId: string, id: string): Promise<boolean>;
  /** Appends deliveries to the outbox in the order given, and returns them with their `seq`. */
  addDeliveries(deliveries: readonly NewDelivery[]): Promise<PendingDelivery[]>;
  /** Every delivery not yet made or given up on, by `seq`. */
  pendingDeliveries(): Promise<PendingDelivery[]>;
  /** Records that a delivery has now failed `attempts` times. */
  recordAttempt(seq: number, attempts: number): Promise<void>;
  /** Takes a delivery out of the outbox: it was made, or given up on. */
  removeDelivery(seq: number): Promise<void>;
}
