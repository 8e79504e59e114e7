// Forwarding to an agent registered by URL: the client's request goes on to the agent's own
// address (through the SSRF guard) and the answer comes back as it arrives, streams included.

import type { HttpRequest, HttpResponse } from '../net/http-types.js';
import { statusError } from '../a2a/server/http.js';
import { isLiteError } from '../errors.js';
import { readText } from '../net/body.js';
import { requestAgent } from './agent-request.js';
import { headersToPass } from './passed-headers.js';

const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

/** Sends `request` to `base` + `path` and relays the agent's answer. */
export async function forwardTo(base: string, request: HttpRequest, path: string, allowPrivate: boolean): Promise<HttpResponse> {
  const headers = headersToPass(request);
  // Written out as the hub read it: a server of any make reads the same query.
  const query = request.query.toString();
  const url = `${base}${path === '/' && !base.endsWith('/') ? '' : path}${query === '' ? '' : `?${query}`}`;
  let response;
  try {
    // A blocking send may take as long as its task: no timeout.
    response = await requestAgent(
      url,
      {
        method: request.method,
        headers,
        ...(request.method === 'GET' || request.method === 'HEAD' ? {} : { body: request.body }),
        ...(request.signal === undefined ? {} : { signal: request.signal }),
      },
      allowPrivate,
    );
  } catch (error) {
    return statusError(502, 'UNAVAILABLE', isLiteError(error) ? error.message : 'the agent could not be reached');
  }
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (typeof value === 'string' && !['connection', 'content-length', 'transfer-encoding', 'keep-alive', 'set-cookie'].includes(name)) out[name] = value;
  }
  const status = response.statusCode ?? 502;
  if (/text\/event-stream/i.test(out['content-type'] ?? '')) {
    response.setEncoding('utf8');
    return { status, headers: out, events: response as AsyncIterable<string> };
  }
  try {
    return { status, headers: out, body: await readText(response, MAX_ANSWER_BYTES) };
  } catch (error) {
    return statusError(502, 'UNAVAILABLE', isLiteError(error) ? `the agent's answer: ${error.message}` : 'the agent stopped answering');
  }
}
