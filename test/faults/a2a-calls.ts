// A2A 1.0 JSON-RPC calls for the fault tests, over node:http with a connection pool per server
// run, so that a killed server's sockets are never reused for the next one.
import http from 'node:http';

export type Json = Record<string, unknown>;

/** A JSON-RPC answer: a result or an error. */
export interface RpcAnswer {
  result?: Json;
  error?: { code: number; message: string };
}

let counter = 0;

/** A user's text message in A2A 1.0 JSON. */
export function userMessage(text: string): Json {
  counter += 1;
  return { messageId: `fault-${process.pid}-${counter}`, role: 'ROLE_USER', parts: [{ text }] };
}

/** The state a StreamResponse or a task tells of (`TASK_STATE_…`), if it tells one. */
export function stateOf(value: Json): string | undefined {
  const holder = (value.task ?? value.statusUpdate ?? value) as { status?: { state?: unknown } };
  const state = holder.status?.state;
  return typeof state === 'string' ? state : undefined;
}

/** The text of a status's message: the reason a task failed. */
export function statusText(task: Json): string | undefined {
  const parts = (task.status as { message?: { parts?: { text?: string }[] } } | undefined)?.message?.parts;
  return parts?.map((p) => p.text ?? '').join('');
}

export class A2AClient {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 32 });

  constructor(readonly url: string) {}

  /** One JSON-RPC call; rejects when the connection fails or breaks before the whole answer. */
  async call(method: string, params: Json, timeoutMs = 20_000): Promise<RpcAnswer> {
    let body = '';
    await this.post(method, params, timeoutMs, (chunk) => (body += chunk));
    return JSON.parse(body) as RpcAnswer;
  }

  /**
   * A streaming call: `onEvent` gets each SSE event's JSON-RPC answer as it arrives. Resolves
   * when the server ends the stream; rejects when the connection breaks first.
   */
  async stream(method: string, params: Json, onEvent: (answer: RpcAnswer) => void, timeoutMs = 20_000): Promise<void> {
    let buffer = '';
    await this.post(method, params, timeoutMs, (chunk) => {
      buffer += chunk;
      for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = event
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).trimStart())
          .join('\n');
        if (data !== '') onEvent(JSON.parse(data) as RpcAnswer);
      }
    });
  }

  /** Drops every pooled connection. */
  close(): void {
    this.agent.destroy();
  }

  private post(method: string, params: Json, timeoutMs: number, onText: (chunk: string) => void): Promise<void> {
    const payload = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
    return new Promise((resolve, reject) => {
      const request = http.request(
        this.url,
        {
          method: 'POST',
          agent: this.agent,
          timeout: timeoutMs,
          headers: { 'content-type': 'application/json', 'a2a-version': '1.0', 'content-length': Buffer.byteLength(payload) },
        },
        (response) => {
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => {
            try {
              onText(chunk);
            } catch (error) {
              request.destroy(error as Error);
            }
          });
          response.on('error', reject);
          response.on('end', () => resolve());
          response.on('close', () => {
            if (!response.complete) reject(new Error('the connection closed before the whole answer'));
          });
        },
      );
      request.on('timeout', () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      request.on('error', reject);
      request.end(payload);
    });
  }
}
