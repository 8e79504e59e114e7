// What the chat driver is given with each chat message: who sent it, the ledger that records the
// exchange, the language of its replies, and where replies and failures go as they happen.

import type { Lang } from '../card/render.js';
import type { FileTaskLedger } from '../home/task-ledger.js';

/** What the driver needs of a ledger: `FileTaskLedger`, or anything shaped like it. */
export type LiteLedger = Pick<FileTaskLedger, 'record' | 'has' | 'get'>;

export interface LiteReceiveOptions {
  /** The peer who sent the text (its agent id): the owner of the task ids it names. */
  from: string;
  /** Records received tasks with the replies sent, and peers' status, result and ack. */
  ledger?: LiteLedger;
  /** The language of the card reply and of the driver's own words (default `zh`). */
  lang?: Lang;
  /** Called with each reply as soon as it exists, so long tasks report progress as it happens. */
  onReply?: (reply: string) => void;
  /** Told of failures that have no reply: a ledger that refused a record, a throwing `onReply`. */
  onError?: (error: unknown) => void;
}
