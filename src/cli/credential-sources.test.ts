import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AuditEvent } from '../a2a/server/audit.js';
import { CredentialSources } from './credential-sources.js';
import type { TokenFile } from './token-files.js';

const head = (token: string) => ({ method: 'GET', path: '/x', headers: { authorization: `Bearer ${token}` } });

function setUp() {
  const dir = mkdtempSync(join(tmpdir(), 'sources-'));
  const write = (name: string, token: string): TokenFile => {
    const path = join(dir, name);
    writeFileSync(path, token);
    chmodSync(path, 0o600);
    return { name, path, option: '--token-file' };
  };
  const files = [write('alice', 'a-1'), write('bob', 'b-1')];
  const log: string[] = [];
  const audit: AuditEvent[] = [];
  const sources = new CredentialSources('hub', { env: [{ principal: 'ENV_CAROL', secret: 'c-1' }], files }, {}, (line) => log.push(line));
  const ring = sources.ring!;
  const revoked: string[] = [];
  ring.onRevoke((names) => revoked.push(...names));
  const reread = () => sources.reread((line) => log.push(line), (event) => audit.push(event));
  return { dir, write, sources, ring, log, audit, revoked, reread };
}

describe('CredentialSources', () => {
  it('takes the variables and the files at start', () => {
    const { ring, sources } = setUp();
    expect(['a-1', 'b-1', 'c-1'].map((token) => ring.principalOf(head(token), 'x'))).toEqual(['alice', 'bob', 'ENV_CAROL']);
    expect(sources.count).toBe(3);
    expect(sources.rereadable).toBe(true);
  });

  it('on a reread: a changed file replaces its token, an emptied one withdraws it', () => {
    const { write, ring, reread, revoked, audit, log } = setUp();
    write('alice', 'a-2\n');
    write('bob', '');
    reread();
    expect(['a-1', 'a-2', 'b-1', 'c-1'].map((token) => ring.principalOf(head(token), 'x'))).toEqual([undefined, 'alice', undefined, 'ENV_CAROL']);
    expect(revoked).toEqual(['alice', 'bob']);
    expect(audit.map((event) => [event.principal, event.outcome, event.detail])).toEqual([['alice', 'ok', 'changed'], ['bob', 'ok', 'withdrawn']]);
    expect(log.at(-1)).toBe('a2a-lite: hub: tokens read again (SIGHUP): alice changed, bob withdrawn; 2 accepted');
    // A token written again later works again.
    write('bob', 'b-3');
    reread();
    expect(ring.principalOf(head('b-3'), 'x')).toBe('bob');
    expect(audit.at(-1)).toMatchObject({ principal: 'bob', detail: 'added' });
  });

  it('keeps the token of a file it cannot read (gone, a folder, too big, two words), saying why', () => {
    const { dir, write, ring, reread, revoked, audit, log } = setUp();
    rmSync(join(dir, 'alice'));
    write('bob', 'one two');
    reread();
    expect(['a-1', 'b-1'].map((token) => ring.principalOf(head(token), 'x'))).toEqual(['alice', 'bob']);
    expect(revoked).toEqual([]);
    expect(audit.map((event) => [event.principal, event.outcome, event.detail])).toEqual([['alice', 'FILE_NOT_FOUND', 'kept'], ['bob', 'USAGE', 'kept']]);
    expect(log.join('\n')).toMatch(/alice \(--token-file alice\) does not exist; alice keeps the token it had/);
    expect(log.join('\n')).not.toMatch(/one two/);
    write('bob', 'x'.repeat(5000));
    reread();
    expect(ring.principalOf(head('b-1'), 'x')).toBe('bob');
  });

  it('changes nothing when two files would hold one token', () => {
    const { write, ring, reread, revoked, log, audit } = setUp();
    write('alice', 'b-1');
    reread();
    expect(ring.principalOf(head('a-1'), 'x')).toBe('alice');
    expect(ring.principalOf(head('b-1'), 'x')).toBe('bob');
    expect(revoked).toEqual([]);
    expect(log.at(-1)).toMatch(/the credentials of .* are the same secret; each principal needs its own; no token changed/);
    expect(audit.at(-1)).toMatchObject({ action: 'token-reload', outcome: 'USAGE', detail: 'nothing changed' });
    // The refused content is not kept either: fixing the file later is a change of alice's token.
    write('alice', 'a-9');
    reread();
    expect(revoked).toEqual(['alice']);
  });

  it('is no ring at all without any token, and nothing to reread', () => {
    const sources = new CredentialSources('serve', {}, {}, () => {});
    expect(sources.ring).toBeUndefined();
    expect(sources.rereadable).toBe(false);
  });
});
