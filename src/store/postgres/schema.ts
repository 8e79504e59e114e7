// The PostgreSQL task store's schema: the SQLite store's tables (sqlite/schema.ts) with what
// replicas sharing the database need beside them (cluster-store.ts). Built by the numbered
// migrations of migrate.ts; `{schema}` is the store's schema.

// Strings are bytea (see keys.ts): ids whole, the other compared columns as `indexKey`s. `json`
// holds the whole task as text (not jsonb, which refuses the \u0000 escape a task may hold); read
// ids from it when poking at the tables by hand. Timestamps a client sees stay the ISO strings
// of the task; the lease columns, which only the database compares, are its own timestamptz.
//
// Migration n (1-based) takes the schema from version n-1 to n; never edit one that shipped.
export const MIGRATIONS: readonly string[] = [
  `CREATE TABLE {schema}.tasks (
     id bytea PRIMARY KEY,
     context_id bytea NOT NULL,
     state text NOT NULL,
     status_timestamp bytea NOT NULL,
     -- The principal that made the task (see TaskStore); NULL without auth. Set by the insert.
     owner bytea,
     -- The replica running the task's handler (SaveExtras.runner). Set by the insert.
     runner text,
     created_at text NOT NULL,
     json text NOT NULL
   );
   CREATE INDEX tasks_newest ON {schema}.tasks (status_timestamp DESC, id);
   CREATE INDEX tasks_by_context ON {schema}.tasks (context_id, status_timestamp DESC, id);
   CREATE INDEX tasks_by_state ON {schema}.tasks (state, status_timestamp DESC, id);
   CREATE INDEX tasks_by_owner ON {schema}.tasks (owner, status_timestamp DESC, id) WHERE owner IS NOT NULL;
   -- What a survivor looks for when a replica dies: its tasks that have not ended.
   CREATE INDEX tasks_running ON {schema}.tasks (runner)
     WHERE runner IS NOT NULL AND state NOT IN ('completed', 'failed', 'cancelled', 'rejected');

   -- Each task's numbered events, one row per save, for replay to a client that lost its stream.
   CREATE TABLE {schema}.task_events (
     task_id bytea NOT NULL,
     last_seq bigint NOT NULL,
     first_seq bigint NOT NULL,
     json text NOT NULL,
     PRIMARY KEY (task_id, last_seq)
   );
   -- Idempotency keys by owner (an empty bytea for none) and key, with the task or the direct
   -- answer each was first given; a replica claims one here before starting its task.
   CREATE TABLE {schema}.idempotency_keys (
     owner bytea NOT NULL,
     key bytea NOT NULL,
     fingerprint text NOT NULL,
     task_id bytea,
     message text,
     created_at text NOT NULL,
     PRIMARY KEY (owner, key)
   );
   CREATE INDEX idempotency_by_task ON {schema}.idempotency_keys (task_id) WHERE task_id IS NOT NULL;

   -- Push configs (listed by position, which an upsert keeps) and the outbox of deliveries not
   -- yet made; an identity never hands out a number twice, so seq is the order of events. A
   -- replica sending a delivery holds a claim on it until claim_expires.
   CREATE TABLE {schema}.push_configs (
     task_id bytea NOT NULL,
     id bytea NOT NULL,
     position bigint GENERATED ALWAYS AS IDENTITY,
     json text NOT NULL,
     PRIMARY KEY (task_id, id)
   );
   CREATE TABLE {schema}.push_outbox (
     seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
     task_id bytea NOT NULL,
     config_id bytea NOT NULL,
     body text NOT NULL,
     attempts integer NOT NULL DEFAULT 0,
     claimed_by text,
     claim_expires timestamptz
   );
   CREATE INDEX push_outbox_by_task ON {schema}.push_outbox (task_id, config_id);

   -- What the server remembers beside its tasks, by name, as JSON (the retention rules).
   CREATE TABLE {schema}.settings (
     name text PRIMARY KEY,
     json text NOT NULL
   );

   -- Replicas alive until their lease runs out, and the leader of each once-per-cluster job.
   CREATE TABLE {schema}.replicas (
     name text PRIMARY KEY,
     expires_at timestamptz NOT NULL
   );
   CREATE TABLE {schema}.leaders (
     role text PRIMARY KEY,
     replica text NOT NULL,
     expires_at timestamptz NOT NULL
   );`,
  // The replica that claimed a key for a task it has not saved yet (NULL once the task's first
  // save stores it): when that replica dies first, a survivor gives the key back (cluster.ts).
  `ALTER TABLE {schema}.idempotency_keys ADD COLUMN claimed_by text;
   CREATE INDEX idempotency_claims ON {schema}.idempotency_keys (claimed_by) WHERE claimed_by IS NOT NULL;`,
];
