// The known-agents cache: `known-agents/<id>.json`, one card per peer, as the protocol names
// it. Cards are validated and scanned for credentials before they are written.

import { readdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { assertCard, checkCard } from '../card/validate.js';
import type { LiteCard } from '../card/types.js';
import { LiteError } from '../errors.js';
import { ioError, readJsonFile, writeFileAtomic } from './atomic-file.js';
import { encodeName } from './file-names.js';
import type { RemoteAccess } from '../model/remote-access.js';

/** Facts about a cached card kept beside it under this key; not part of the card itself. */
export const CACHE_KEY = 'x-a2a-lite';

export interface CacheInfo {
  /** Where the card came from: `chat` (an [A2A:card] reply), `file`, or `a2a:<url>`. */
  source: string;
  learnedAt: string;
  updatedAt: string;
  /** How to call an agent found with `discover`: its interfaces, streaming, security schemes. */
  a2a?: RemoteAccess;
  /** The environment variable holding the token for this agent (the name only, never the value). */
  tokenEnv?: string;
  /** When the agent last answered a task sent with `a2a-lite send` (routing prefers recent ones). */
  answeredAt?: string;
}

/** Cache facts a caller may set besides the card; those not given are kept from before. */
export type CacheExtra = Partial<Pick<CacheInfo, 'a2a' | 'tokenEnv' | 'answeredAt'>>;

export interface KnownAgent {
  card: LiteCard;
  cache: CacheInfo;
  path: string;
}

export class AgentDirectory {
  readonly dir: string;

  constructor(dir: string) {
    this.dir = dir;
  }

  /** Validates and caches `card` (replacing an older card of the same id). */
  add(card: unknown, source: string, now = new Date(), extra: CacheExtra = {}): { agent: KnownAgent; replaced: boolean } {
    const valid = assertCard(stripCache(card), 'card');
    const path = this.pathOf(valid.agent.id);
    const previous = this.find(valid.agent.id);
    const at = now.toISOString();
    const cache: CacheInfo = { source, learnedAt: previous?.cache.learnedAt ?? at, updatedAt: at };
    // What a client needs to call the agent only makes sense for the address it was read from.
    const sameSource = previous?.cache.source === source;
    const a2a = extra.a2a ?? (sameSource ? previous?.cache.a2a : undefined);
    const tokenEnv = extra.tokenEnv ?? (sameSource ? previous?.cache.tokenEnv : undefined);
    const answeredAt = extra.answeredAt ?? (sameSource ? previous?.cache.answeredAt : undefined);
    if (a2a !== undefined) cache.a2a = a2a;
    if (tokenEnv !== undefined) cache.tokenEnv = tokenEnv;
    if (answeredAt !== undefined) cache.answeredAt = answeredAt;
    writeFileAtomic(path, `${JSON.stringify({ ...valid, [CACHE_KEY]: cache }, null, 2)}\n`);
    return { agent: { card: valid, cache, path }, replaced: previous !== undefined };
  }

  find(id: string): KnownAgent | undefined {
    const path = this.pathOf(id);
    const stored = readJsonFile(path);
    return stored === undefined ? undefined : fromStored(stored, path);
  }

  get(id: string): KnownAgent {
    const agent = this.find(id);
    if (agent === undefined) throw new LiteError('AGENT_NOT_FOUND', `no cached card for "${id}"; add one with: a2a-lite agents add FILE`, { agent: id });
    return agent;
  }

  /**
   * Every cached agent, by id; with `skill`, only those offering it (by skill id, tag or name).
   * A file that no longer holds a valid card is passed to `onInvalid` and left out.
   */
  list(filter: { skill?: string } = {}, onInvalid: (path: string, problem: LiteError) => void = () => {}): KnownAgent[] {
    let names: string[];
    try {
      names = readdirSync(this.dir).filter((n) => n.endsWith('.json') && !n.startsWith('.'));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw ioError('read', this.dir, error);
    }
    const agents: KnownAgent[] = [];
    for (const name of names.sort()) {
      const path = join(this.dir, name);
      try {
        const agent = fromStored(readJsonFile(path), path);
        if (filter.skill === undefined || offers(agent.card, filter.skill)) agents.push(agent);
      } catch (error) {
        if (!(error instanceof LiteError)) throw error;
        onInvalid(path, error);
      }
    }
    return agents;
  }

  remove(id: string): void {
    const path = this.pathOf(id);
    try {
      unlinkSync(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new LiteError('AGENT_NOT_FOUND', `no cached card for "${id}"`, { agent: id });
      throw ioError('remove', path, error);
    }
  }

  private pathOf(id: string): string {
    return join(this.dir, `${encodeName(id)}.json`);
  }
}

/** True when `card` lists a skill whose id, a tag or the name matches `skill` (any case). */
export function offers(card: LiteCard, skill: string): boolean {
  const wanted = skill.toLowerCase();
  return (card.skills ?? []).some(
    (s) => s.id.toLowerCase() === wanted || s.name.toLowerCase() === wanted || (s.tags ?? []).some((t) => t.toLowerCase() === wanted),
  );
}

/** Splits a stored file into the card and its cache entry, checking the card is still valid. */
function fromStored(stored: unknown, path: string): KnownAgent {
  if (typeof stored !== 'object' || stored === null || Array.isArray(stored)) {
    throw new LiteError('LEDGER_CORRUPT', `${path} does not hold a card object; remove it or add the agent again`, { path });
  }
  const { [CACHE_KEY]: cache, ...card } = stored as Record<string, unknown>;
  const { valid, errors } = checkCard(card);
  if (!valid) {
    const first = errors[0];
    throw new LiteError('LEDGER_CORRUPT', `${path} no longer holds a valid card (${first?.path} ${first?.message}); add the agent again`, { path, errors });
  }
  const info = (typeof cache === 'object' && cache !== null ? cache : {}) as Partial<CacheInfo>;
  const facts: CacheInfo = { source: text(info.source) ?? 'file', learnedAt: text(info.learnedAt) ?? '', updatedAt: text(info.updatedAt) ?? '' };
  if (isAccess(info.a2a)) facts.a2a = info.a2a;
  if (text(info.tokenEnv) !== undefined) facts.tokenEnv = info.tokenEnv as string;
  if (text(info.answeredAt) !== undefined) facts.answeredAt = info.answeredAt as string;
  return { card: card as unknown as LiteCard, cache: facts, path };
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** A stored RemoteAccess that still has the shape a client relies on. */
function isAccess(value: unknown): value is RemoteAccess {
  if (typeof value !== 'object' || value === null) return false;
  const access = value as Partial<RemoteAccess>;
  return (
    typeof access.cardUrl === 'string' &&
    Array.isArray(access.interfaces) &&
    access.interfaces.every(
      (i) => typeof i?.url === 'string' && (i.binding === 'JSONRPC' || i.binding === 'HTTP+JSON' || i.binding === 'GRPC') && (i.version === '1.0' || i.version === '0.3') && (i.tenant === undefined || typeof i.tenant === 'string'),
    ) &&
    typeof access.security === 'object' &&
    access.security !== null
  );
}

function stripCache(card: unknown): unknown {
  if (typeof card !== 'object' || card === null || Array.isArray(card)) return card;
  const { [CACHE_KEY]: _cache, ...rest } = card as Record<string, unknown>;
  return rest;
}
