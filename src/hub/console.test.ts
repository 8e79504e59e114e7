import { describe, expect, it } from 'vitest';
import type { HttpRequest } from '../net/http-types.js';
import { consoleRoutes } from './console.js';

const serve = consoleRoutes();
const get = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
  serve({ method, path, query: new URLSearchParams(), headers, body: '' } satisfies HttpRequest);

describe('the hub console files', () => {
  it('serves the page, its style and its scripts with their media types and a strict policy', () => {
    const page = get('/console/');
    expect(page).toMatchObject({ status: 200, headers: { 'content-type': 'text/html; charset=utf-8', 'x-frame-options': 'DENY' } });
    expect(page && 'body' in page && page.body).toContain('<script type="module" src="console.js">');
    expect(page?.headers['content-security-policy']).toContain("script-src 'self'");
    expect(get('/console/console.js')?.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(get('/console/console.css')?.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(get('/console/limits.js')?.headers['content-type']).toBe('text/javascript; charset=utf-8');
  });

  it('sends /console on to /console/, so that the page finds its files', () => {
    expect(get('/console')).toMatchObject({ status: 308, headers: { location: 'console/' } });
  });

  it('answers a revalidation with 304 while the file is unchanged', () => {
    const etag = get('/console/console.js')!.headers.etag!;
    expect(get('/console/console.js', { 'if-none-match': etag })?.status).toBe(304);
    expect(get('/console/console.js', { 'if-none-match': '"other"' })?.status).toBe(200);
  });

  it.each(['/console/../package.json', '/console/%2e%2e/package.json', '/console/secrets.txt', '/console/index.html/', '/console//etc/passwd'])(
    'serves nothing but its four files: %s is 404',
    (path) => {
      expect(get(path)?.status).toBe(404);
    },
  );

  it('leaves every other path to the hub, and refuses writes', () => {
    expect(get('/hub/v1/agents')).toBeUndefined();
    expect(get('/consoles')).toBeUndefined();
    expect(get('/console/', {}, 'POST')).toMatchObject({ status: 405, headers: { allow: 'GET, HEAD' } });
  });
});
