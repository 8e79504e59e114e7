import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { AddressGuardOptions } from './address-guard.js';
import { readText } from './body.js';
import { outboundFetch } from './outbound-fetch.js';
import { request } from './outbound.js';

interface Seen {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

const closers: (() => void)[] = [];
afterEach(() => {
  while (closers.length > 0) closers.pop()?.();
});

/** A server on 127.0.0.1 that notes every request and answers as `answer` says. */
async function server(answer: (req: IncomingMessage, res: ServerResponse, body: string) => void = (_req, res) => res.end('hello')): Promise<{ port: number; seen: Seen[] }> {
  const seen: Seen[] = [];
  const http = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
      answer(req, res, body);
    });
  });
  http.listen(0, '127.0.0.1');
  await once(http, 'listening');
  closers.push(() => {
    http.closeAllConnections();
    http.close();
  });
  return { port: (http.address() as AddressInfo).port, seen };
}

const redirect = (to: string, status = 302) => (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(status, { location: to });
  res.end();
};

/** A guard for a pretend network: the names given are at 127.0.0.1 and allowed there; every lookup is counted. */
function guardFor(...names: string[]): AddressGuardOptions & { lookups: string[] } {
  const lookups: string[] = [];
  return {
    lookups,
    allowPrivateHosts: names,
    resolve: async (name) => {
      lookups.push(name);
      if (!names.includes(name)) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
      return [{ address: '127.0.0.1', family: 4 }];
    },
  };
}

describe('request', () => {
  it('sends a plain request and hands back the answer to read', async () => {
    const { port, seen } = await server();
    const answer = await request(`http://127.0.0.1:${port}/x`, { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: 'hi' });
    expect(answer.statusCode).toBe(200);
    expect(await readText(answer, 100)).toBe('hello');
    expect(seen).toMatchObject([{ method: 'POST', path: '/x', headers: { 'content-type': 'text/plain', 'content-length': '2' }, body: 'hi' }]);
  });

  it('refuses a private address before connecting when guarded', async () => {
    const { port, seen } = await server();
    await expect(request(`http://127.0.0.1:${port}/`, { guard: {} })).rejects.toMatchObject({ code: 'FORBIDDEN', details: { reason: 'loopback' } });
    await expect(request(`http://localhost:${port}/`, { guard: {} })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect(seen).toEqual([]);
  });

  it('connects to the address it checked, asking for the name once per hop', async () => {
    const { port, seen } = await server();
    const guard = guardFor('pinned.example');
    const answer = await request(`http://pinned.example:${port}/`, { guard });
    expect(await readText(answer, 100)).toBe('hello');
    expect(guard.lookups).toEqual(['pinned.example']);
    expect(seen[0]?.headers.host).toBe(`pinned.example:${port}`);
  });

  it('hands back a redirect as the answer unless asked to follow', async () => {
    const { port } = await server(redirect('/elsewhere'));
    const answer = await request(`http://127.0.0.1:${port}/`);
    expect([answer.statusCode, answer.headers.location]).toEqual([302, '/elsewhere']);
    answer.destroy();
  });

  it('checks every hop of a redirect: an allowed name on, 127.0.0.1 never', async () => {
    const target = await server();
    const front = await server((req, res) => redirect(req.url === '/to-name' ? `http://b.example:${target.port}/there` : `http://127.0.0.1:${target.port}/there`)(req, res));
    const guard = guardFor('a.example', 'b.example');
    const followed = await request(`http://a.example:${front.port}/to-name`, { guard, maxRedirects: 5 });
    expect(await readText(followed, 100)).toBe('hello');
    expect(guard.lookups).toEqual(['a.example', 'b.example']);

    await expect(request(`http://a.example:${front.port}/to-loopback`, { guard, maxRedirects: 5 })).rejects.toMatchObject({ code: 'FORBIDDEN', details: { host: '127.0.0.1', reason: 'loopback' } });
    expect(target.seen.map((s) => s.path)).toEqual(['/there']);
  });

  it('drops credentials on a redirect that leaves the origin, and keeps them on one that does not', async () => {
    const target = await server();
    const front = await server((req, res) => redirect(req.url === '/same' ? '/landed' : `http://127.0.0.1:${target.port}/landed`)(req, res));
    const headers = { Authorization: 'Bearer secret-1', Cookie: 'session=secret-2', 'X-Api-Key': 'secret-3', 'X-Trace': 'kept', accept: 'application/json' };
    await request(`http://127.0.0.1:${front.port}/other`, { headers, maxRedirects: 5, secretHeaders: ['x-api-key'] }).then((a) => a.resume());
    expect(target.seen[0]?.headers).toMatchObject({ 'x-trace': 'kept', accept: 'application/json' });
    expect(JSON.stringify(target.seen[0]?.headers)).not.toMatch(/secret/);

    await request(`http://127.0.0.1:${front.port}/same`, { headers, maxRedirects: 5, secretHeaders: ['x-api-key'] }).then((a) => a.resume());
    expect(front.seen.at(-1)).toMatchObject({ path: '/landed', headers: { authorization: 'Bearer secret-1', cookie: 'session=secret-2', 'x-api-key': 'secret-3' } });
  });

  it('follows a 303 with a GET and a 307 with the same POST', async () => {
    const target = await server();
    const front = await server((req, res) => redirect(`http://127.0.0.1:${target.port}/landed`, req.url === '/see-other' ? 303 : 307)(req, res));
    for (const path of ['/see-other', '/temporary']) {
      await request(`http://127.0.0.1:${front.port}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}', maxRedirects: 1 }).then((a) => a.resume());
    }
    expect(target.seen.map(({ method, body, headers }) => [method, body, headers['content-type'] ?? ''])).toEqual([
      ['GET', '', ''],
      ['POST', '{"a":1}', 'application/json'],
    ]);
  });

  it('gives up past its redirects, and on a redirect to no http URL', async () => {
    const loop = await server(redirect('/again'));
    await expect(request(`http://127.0.0.1:${loop.port}/`, { maxRedirects: 3 })).rejects.toMatchObject({ code: 'PEER_ERROR', message: expect.stringContaining('redirected more than 3 times') });
    expect(loop.seen).toHaveLength(4);
    const file = await server(redirect('file:///etc/passwd'));
    await expect(request(`http://127.0.0.1:${file.port}/`, { maxRedirects: 3 })).rejects.toMatchObject({ code: 'PEER_ERROR', message: expect.stringContaining('a file: URL') });
  });
});

describe('outboundFetch', () => {
  it('answers as fetch does: status, headers, a streamed body', async () => {
    const { port } = await server((_req, res) => {
      res.writeHead(201, { 'content-type': 'text/event-stream', 'x-many': ['a', 'b'] });
      res.write('data: 1\n\n');
      setTimeout(() => res.end('data: 2\n\n'), 20);
    });
    const response = await outboundFetch()(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(201);
    expect(response.headers.get('x-many')).toBe('a, b');
    expect(await response.text()).toBe('data: 1\n\ndata: 2\n\n');
    const empty = await outboundFetch()(`http://127.0.0.1:${port}/`, { method: 'HEAD' });
    expect(empty.body).toBeNull();
  });

  it("follows redirects (checked), hands back a 'manual' one, and fails on an 'error' one", async () => {
    const target = await server();
    const front = await server(redirect(`http://127.0.0.1:${target.port}/`));
    expect(await (await outboundFetch()(`http://127.0.0.1:${front.port}/`)).text()).toBe('hello');
    expect((await outboundFetch()(`http://127.0.0.1:${front.port}/`, { redirect: 'manual' })).status).toBe(302);
    await expect(outboundFetch()(`http://127.0.0.1:${front.port}/`, { redirect: 'error' })).rejects.toMatchObject({ name: 'TypeError', cause: { message: 'unexpected redirect' } });
    const guarded = outboundFetch(guardFor('a.example'));
    await expect(guarded(`http://a.example:${front.port}/`)).rejects.toMatchObject({ code: 'FORBIDDEN', details: { host: '127.0.0.1' } });
    expect(target.seen).toHaveLength(1);
  });

  it('fails as fetch does when nothing listens, and when aborted', async () => {
    const { port } = await server();
    closers.pop()?.();
    await expect(outboundFetch()(`http://127.0.0.1:${port}/`)).rejects.toMatchObject({ name: 'TypeError', message: 'fetch failed', cause: { code: 'ECONNREFUSED' } });
    const slow = await server(() => undefined);
    const aborted = AbortSignal.timeout(50);
    await expect(outboundFetch()(`http://127.0.0.1:${slow.port}/`, { signal: aborted })).rejects.toMatchObject({ name: 'TimeoutError' });
  });

  it('refuses a header value it cannot send without quoting it', async () => {
    const { port, seen } = await server();
    const error = await outboundFetch()(`http://127.0.0.1:${port}/`, { headers: { authorization: 'Bearer to\nken-secret' } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect(String((error as Error).message)).not.toContain('secret');
    expect(seen).toEqual([]);
  });
});
