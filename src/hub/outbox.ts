// The agent's posts of its answers on an event-stream session (a hub that does not upgrade):
// frames sent in order, as many a post as have queued while the last post was out, on one
// kept-alive connection.

import { keptAliveAgents, request } from '../net/outbound.js';
import { MAX_FRAMES_PER_POST, type UpFrame } from './frames.js';

/** A post is closed once it holds this much (a single larger frame goes alone). */
const POST_BYTES = 8 * 1024 * 1024;

/** Connections kept open for the posts: one post follows another all the time under load. */
const keptAlive = keptAliveAgents({ maxSockets: 1 });

/** POSTs `body` and reads the answer away. */
async function post(url: string, body: string, auth: Record<string, string>, timeoutMs: number | undefined): Promise<void> {
  // Small posts one after another: Nagle's wait for the last one's ACK would add a delay to each.
  const answer = await request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...auth }, body, agents: keptAlive, noDelay: true, ...(timeoutMs === undefined ? {} : { timeoutMs }) });
  await new Promise<void>((resolve, reject) => {
    answer.resume();
    answer.on('end', resolve);
    answer.on('error', reject);
  });
}

/** Frames waiting to be posted, sent in order, as many at a time as have queued up. */
export class Outbox {
  session = '';
  /** How long a post's connection may stay silent (the hub's write timeout): a post through a dead NAT mapping fails, and so does the session. */
  timeoutMs: number | undefined;
  private readonly queue: UpFrame[] = [];
  private flushing = false;

  constructor(
    private readonly hub: string,
    private readonly auth: Record<string, string>,
    /** A post failed: the session's answers can no longer reach the hub. */
    private readonly failed: (why: string) => void = () => {},
  ) {}

  push(frame: UpFrame): void {
    this.queue.push(frame);
    if (!this.flushing) void this.flush();
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.queue.length > 0) {
        // As many frames as have queued, up to the hub's limits on a post.
        const parts: string[] = [];
        let size = 0;
        while (this.queue.length > 0 && parts.length < MAX_FRAMES_PER_POST && (parts.length === 0 || size < POST_BYTES)) {
          const part = JSON.stringify(this.queue.shift());
          parts.push(part);
          size += part.length;
        }
        // The connection is going down with this session if this fails: its requests fail at the hub.
        await post(`${this.hub}/hub/v1/connect/${this.session}`, `{"frames":[${parts.join(',')}]}`, this.auth, this.timeoutMs).catch((error: unknown) => {
          const code = (error as { code?: string }).code;
          this.failed(`a post of answers to the hub failed: ${code ?? (error as Error).message}`);
        });
      }
    } finally {
      this.flushing = false;
    }
  }
}
