// A cluster URL (`nats://[user:pass@]host[:port][,nats://…]`) read into what the NATS client
// takes: the servers, without credentials, and the credentials apart. A URL is shown in messages
// without its user and password, however it was written.

import { LiteError } from '../errors.js';

export interface NatsTarget {
  /** `host:port` of each server, without credentials. */
  servers: string[];
  user?: string;
  pass?: string;
  /** A lone user part (`nats://token@host`) is a token. */
  token?: string;
  /** The servers as `nats://host:port`, for messages. */
  shown: string;
}

/** Reads a `nats://` (or `tls://`) URL, or several joined by commas. USAGE names what is wrong, never a password. */
export function natsTarget(text: string): NatsTarget {
  const target: NatsTarget = { servers: [], shown: '' };
  for (const part of text.split(',')) {
    let url: URL;
    try {
      url = new URL(part.trim());
    } catch {
      throw new LiteError('USAGE', `the cluster URL is not a URL (expected nats://host:port): ${shownUrl(part)}`);
    }
    if (url.protocol !== 'nats:' && url.protocol !== 'tls:') throw new LiteError('USAGE', `the cluster URL must start with nats:// or tls://, not ${url.protocol}//`);
    if (url.hostname === '') throw new LiteError('USAGE', 'the cluster URL names no host');
    if (url.username !== '') {
      const user = decodeURIComponent(url.username);
      if (url.password === '') target.token = user;
      else Object.assign(target, { user, pass: decodeURIComponent(url.password) });
    }
    const host = `${url.hostname}:${url.port === '' ? '4222' : url.port}`;
    target.servers.push(url.protocol === 'tls:' ? `tls://${host}` : host);
  }
  target.shown = target.servers.map((server) => (server.startsWith('tls://') ? server : `nats://${server}`)).join(',');
  return target;
}

/** A URL as it may be shown: anything between `//` and `@` left out. */
export function shownUrl(text: string): string {
  return text.replace(/\/\/[^/@\s]*@/g, '//');
}
