// The agent's posts of its answers on an event-stream session (a hub that does not upgrade):
// frames sent in order, as many a post as have queued while the last post was out, on one
// kept-alive connection.

import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { MAX_FRAMES_PER_POST, type UpFrame } from './frames.js';

/** A post is closed once it holds this much (a single larger frame goes alone). */
const POST_BYTES = 8 * 1024 * 1024;

/** Connections kept open for the posts: one post follows another all the time under load. */
const keptAlive = { http: new HttpAgent({ keepAlive: true, maxSockets: 1 }), https: new HttpsAgent({ keepAlive: true, maxSockets: 1 }) };

/** POSTs `body` and reads the answer away; node:http, which costs less per post than fetch. */
function post(url: string, body: string, auth: Record<string, string>): Promise<void> {
  const secure = url.startsWith('https:');
  return new Promise((resolve, reject) => {
    const send = secure ? httpsRequest : httpRequest;
    const req = send(url, { method: 'POST', agent: secure ? keptAlive.https : keptAlive.http, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...auth } }, (res) => {
      res.resume();
      res.on('end', resolve);
      res.on('error', reject);
    });
    req.on('error', reject);
    // Small posts one after another: Nagle's wait for the last one's ACK would add a delay to each.
    req.setNoDelay(true);
    req.end(body);
  });
}

/** Frames waiting to be posted, sent in order, as many at a time as have queued up. */
export class Outbox {
  session = '';
  private readonly queue: UpFrame[] = [];
  private flushing = false;

  constructor(
    private readonly hub: string,
    private readonly auth: Record<string, string>,
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
        await post(`${this.hub}/hub/v1/connect/${this.session}`, `{"frames":[${parts.join(',')}]}`, this.auth).catch(() => undefined);
      }
    } finally {
      this.flushing = false;
    }
  }
}
