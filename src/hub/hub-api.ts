// The hub's own JSON API, for the CLI, scripts and the console: agents (list, get, register by
// URL, remove), search, route candidates, tasks seen and the live feed; and discovery in the
// field's formats: the AI Catalog (`/.well-known/ai-catalog.json`) and ARD search
// (`POST /ard/search`). docs/hub.md gives every path and shape.

import { json, statusError } from '../a2a/server/http.js';
import { SSE_HEADERS } from '../net/sse.js';
import { type HttpRequest, type HttpResponse } from '../net/http-types.js';
import { isLiteError, LiteError } from '../errors.js';
import { parseJson } from '../json-text.js';
import { viewOf } from './agent-card-view.js';
import type { HubAgent } from './hub-store.js';
import type { Hub } from './hub.js';
import type { SearchQuery } from './registry.js';

const A2A_CARD_TYPE = 'application/a2a-agent-card+json';
const MAX_API_BODY = 64 * 1024;

/** An agent as the API shows it: what it offers, where to call it at the hub, how it is. */
export function agentView(hub: Hub, agent: HubAgent, principal: string): Record<string, unknown> {
  const view = viewOf(agent.card);
  // In a cluster, which instance holds its link.
  const link = agent.kind === 'connected' ? hub.linkOf(agent.id) : undefined;
  return {
    id: agent.id,
    kind: agent.kind,
    name: view.name,
    description: view.description,
    version: agent.version,
    previousVersions: agent.previousVersions,
    skills: view.skills,
    url: hub.agentUrl(agent.id),
    cardUrl: `${hub.agentUrl(agent.id)}/.well-known/agent-card.json`,
    connected: agent.kind === 'connected' ? hub.isConnected(agent.id) : undefined,
    link: agent.kind === 'connected' ? link?.kind : undefined,
    instance: link?.instance,
    health: hub.health.of(agent.id),
    mine: agent.owner === principal,
    shared: agent.shared === true,
    signature: hub.registry.signatures.statusOf(agent.card),
    registeredAt: agent.registeredAt,
    updatedAt: agent.updatedAt,
  };
}

/** The AI Catalog envelope: one entry per registered agent, its card at the hub. */
export async function catalog(hub: Hub): Promise<HttpResponse> {
  const host = new URL(hub.options.baseUrl()).host;
  const entries = (await hub.registry.store.list()).map((agent) => ({
    identifier: `urn:air:${host}:a2a:${agent.id}`,
    type: A2A_CARD_TYPE,
    url: `${hub.agentUrl(agent.id)}/.well-known/agent-card.json`,
    tags: [...new Set(viewOf(agent.card).skills.flatMap((skill) => [skill.id, ...skill.tags]))],
    updatedAt: agent.updatedAt,
  }));
  return json(200, { specVersion: '1.0', host: { displayName: `a2a-lite hub at ${host}` }, entries }, { 'content-type': 'application/ai-catalog+json' });
}

/** The answer of an API route, or undefined when `request.path` is none of them. */
export async function apiRoute(hub: Hub, request: HttpRequest, principal: string): Promise<HttpResponse | undefined> {
  const { method, path } = request;
  if (path === '/hub/v1' && method === 'GET') {
    const agents = await hub.registry.store.list();
    const cluster = hub.cluster === undefined ? {} : { cluster: { instance: hub.instance, instances: hub.cluster.alive.length, leader: hub.cluster.leads, checkRounds: hub.checkRounds } };
    return json(200, { hub: 'a2a-lite', principal, agents: agents.length, connected: hub.connectedCount(), ...cluster });
  }
  if (path === '/hub/v1/agents') {
    if (method === 'GET') return json(200, { agents: (await hub.registry.search(queryOf(request.query))).map((agent) => agentView(hub, agent, principal)) });
    if (method === 'POST') {
      const body = bodyOf(request);
      if (typeof body.url !== 'string') throw new LiteError('INVALID_PARAMS', 'a registration is {"url": "<the agent\'s base URL or card URL>", "id"?: "<id>", "shared"?: true}');
      if (body.id !== undefined && typeof body.id !== 'string') throw new LiteError('INVALID_PARAMS', '"id" is a string');
      if (body.shared !== undefined && typeof body.shared !== 'boolean') throw new LiteError('INVALID_PARAMS', '"shared" is true or false');
      let agent: HubAgent;
      try {
        agent = await hub.registry.registerUrl(body.url, principal, body.id, body.shared);
      } catch (error) {
        // The URL the client gave leads to no card: its mistake to fix, not a failure of the hub.
        if (isLiteError(error, 'PEER_UNREACHABLE', 'PEER_ERROR')) return statusError(422, 'FAILED_PRECONDITION', error.message);
        throw error;
      }
      return json(201, { agent: agentView(hub, agent, principal) });
    }
    return statusError(405, 'UNIMPLEMENTED', 'use GET or POST', { allow: 'GET, POST' });
  }
  const one = /^\/hub\/v1\/agents\/([^/]+)$/.exec(path);
  if (one !== null) {
    let id: string;
    try {
      id = decodeURIComponent(one[1] as string);
    } catch {
      throw new LiteError('INVALID_PARAMS', 'the agent id in the path is not valid percent-encoding');
    }
    if (method === 'GET') return json(200, { agent: agentView(hub, await hub.registry.get(id), principal), card: await hub.publishedCard(id), tasks: await hub.listTasks(principal, id) });
    if (method === 'DELETE') {
      await hub.registry.remove(id, principal);
      return json(200, { removed: id });
    }
    return statusError(405, 'UNIMPLEMENTED', 'use GET or DELETE', { allow: 'GET, DELETE' });
  }
  if (path === '/hub/v1/route' && method === 'GET') {
    const skill = request.query.get('skill');
    if (skill === null || skill === '') throw new LiteError('INVALID_PARAMS', 'name the skill: /hub/v1/route?skill=S');
    const candidates = await hub.registry.candidates(skill, principal);
    return json(200, { skill, candidates: candidates.map((c) => ({ agent: agentView(hub, c.agent, principal), score: c.score, why: c.why })) });
  }
  if (path === '/hub/v1/tasks' && method === 'GET') return json(200, { tasks: await hub.listTasks(principal, request.query.get('agent') ?? undefined) });
  if (path === '/hub/v1/events' && method === 'GET') {
    const state = { agents: (await hub.registry.store.list()).map((agent) => agentView(hub, agent, principal)), tasks: await hub.listTasks(principal) };
    return { status: 200, headers: { ...SSE_HEADERS }, events: hub.events.watch(principal, () => state, request.headers['last-event-id']) };
  }
  if (path === '/ard/search') {
    if (method !== 'POST') return statusError(405, 'UNIMPLEMENTED', 'use POST', { allow: 'POST' });
    return ardSearch(hub, request);
  }
  return undefined;
}

function queryOf(params: URLSearchParams): SearchQuery {
  const query: SearchQuery = {};
  const skill = params.get('skill');
  const tag = params.get('tag');
  const text = params.get('q');
  const version = params.get('version');
  if (skill) query.skill = skill;
  if (tag) query.tag = tag;
  if (text) query.text = text;
  if (version) query.version = version;
  if (params.get('healthy') === 'true') query.healthy = true;
  return query;
}

function bodyOf(request: HttpRequest): Record<string, unknown> {
  if (request.body.length > MAX_API_BODY) throw new LiteError('INPUT_TOO_LARGE', `a hub API body is at most ${MAX_API_BODY} bytes`);
  const value = parseJson(request.body, 'the request body');
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new LiteError('INVALID_PARAMS', 'the request body is a JSON object');
  return value as Record<string, unknown>;
}

/**
 * ARD's search: `{query: {text, filter?: {type?, tags?, skills?}}, pageSize?}` → `{results:
 * [catalog entry + score + source]}`. Every result matches all terms, so each scores 100; no
 * federation (`referrals` is always empty) and no page tokens: the hub answers from its own
 * registry, at most `pageSize` (default 10, at most 100) results.
 */
async function ardSearch(hub: Hub, request: HttpRequest): Promise<HttpResponse> {
  const body = bodyOf(request);
  const query = body.query as { text?: unknown; filter?: Record<string, unknown> } | undefined;
  if (typeof query !== 'object' || query === null || typeof query.text !== 'string') {
    return json(400, { errorCode: 'INVALID_REQUEST', message: 'an ARD search is {"query": {"text": "…", "filter"?: {…}}}' });
  }
  const filter = typeof query.filter === 'object' && query.filter !== null ? query.filter : {};
  const list = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : typeof value === 'string' ? [value] : []);
  const types = list(filter.type);
  if (types.length > 0 && !types.includes(A2A_CARD_TYPE)) return json(200, { results: [], referrals: [] });
  const size = Math.min(100, Math.max(1, Number.isInteger(body.pageSize) ? (body.pageSize as number) : 10));
  let agents = await hub.registry.search({ text: query.text });
  for (const tag of list(filter.tags)) {
    const tagged = new Set((await hub.registry.search({ tag })).map((a) => a.id));
    agents = agents.filter((a) => tagged.has(a.id));
  }
  for (const skill of list(filter.skills)) {
    const offering = new Set((await hub.registry.search({ skill })).map((a) => a.id));
    agents = agents.filter((a) => offering.has(a.id));
  }
  const host = new URL(hub.options.baseUrl()).host;
  const results = agents.slice(0, size).map((agent) => {
    const view = viewOf(agent.card);
    return { identifier: `urn:air:${host}:a2a:${agent.id}`, displayName: view.name, type: A2A_CARD_TYPE, url: `${hub.agentUrl(agent.id)}/.well-known/agent-card.json`, description: view.description, tags: [...new Set(view.skills.flatMap((s) => s.tags))], score: 100, source: host };
  });
  return json(200, { results, referrals: [] });
}
