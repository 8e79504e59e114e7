// What the instances of a hub cluster say to each other on the bus, and where (subjects under
// the cluster's prefix). The instances trust one another as they trust their database; a message
// is still read field by field, and one that is not what this version sends is dropped.
//
//   hub.feed                   an instance's own feed events (agents registered and removed, tasks)
//   hub.health                 its own view of agents' health
//   hub.presence               it is alive, and whether a watcher follows its feed; or it stops
//   hub.links                  it took or lost an agent's link
//   hub.at.<instance>          requests to it: open a relayed request, ping, list tasks (answered)
//   hub.at.<instance>.more     the rest of an opened request's body, or its abort
//   hub.at.<instance>.answers  the answers to the requests it opened elsewhere, as frames
//
// A relayed request crosses as `open` (and `part`s for a body larger than PART_CHARS); its answer
// comes back as one `response`, or as `head`, `chunk`s and `end` (a stream, or a large body).

import { subjectToken } from '../../cluster/bus.js';
import type { HubEvent } from '../hub-events.js';
import type { HealthView } from '../health.js';
import type { AgentLink } from './directory.js';

export const FEED = 'hub.feed';
export const HEALTH = 'hub.health';
export const PRESENCE = 'hub.presence';
export const LINKS = 'hub.links';

/** Requests to `instance`. */
export function atInstance(instance: string): string {
  return `hub.at.${subjectToken(instance)}`;
}

/** The rest of the requests `instance` was asked to open. */
export function moreFor(instance: string): string {
  return `${atInstance(instance)}.more`;
}

/** The answers to the requests `instance` opened elsewhere. */
export function answersFor(instance: string): string {
  return `${atInstance(instance)}.answers`;
}

/**
 * The most characters of a body or chunk in one message: NATS takes messages of 1 MB by
 * default, and JSON may write a character as six bytes.
 */
export const PART_CHARS = 128 * 1024;

export interface FeedMessage {
  from: string;
  at: number;
  event: HubEvent;
}

export interface HealthMessage {
  from: string;
  views: (HealthView & { agentId: string })[];
}

/** `hello`: a new instance asks the others for their views; `bye`: it stops. */
export interface PresenceMessage {
  from: string;
  watched: boolean;
  hello?: boolean;
  bye?: boolean;
}

/** A link taken (`link`), or lost by `from` (`gone`). */
export type LinksMessage = { from: string; link: AgentLink } | { from: string; gone: string };

export interface OpenRequest {
  type: 'open';
  from: string;
  rid: string;
  agentId: string;
  method: string;
  path: string;
  query: string;
  headers: Record<string, string>;
  principal: string;
  /** The body's first part; `parts` more follow on `.more`. */
  body: string;
  parts: number;
}

/** What an instance answers on `hub.at.<instance>`. */
export type Asked = OpenRequest | { type: 'ping'; from: string; rids: string[] } | { type: 'tasks'; principal: string; agentId?: string };

export type More = { type: 'part'; from: string; rid: string; data: string } | { type: 'abort'; from: string; rid: string };

export type AnswerFrame =
  | { type: 'response'; rid: string; status: number; headers: Record<string, string>; body: string }
  | { type: 'head'; rid: string; status: number; headers: Record<string, string>; stream: boolean }
  | { type: 'chunk'; rid: string; data: string }
  | { type: 'end'; rid: string };

export function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** True when every field named is a string in `value`. */
export function strings(value: Record<string, unknown>, ...names: string[]): boolean {
  return names.every((name) => typeof value[name] === 'string');
}

/** A map of strings (headers), or undefined. */
export function stringMap(value: unknown): Record<string, string> | undefined {
  const map = record(value);
  if (map === undefined) return undefined;
  for (const field of Object.values(map)) if (typeof field !== 'string') return undefined;
  return map as Record<string, string>;
}

/** An answer frame as sent, or undefined. */
export function answerFrame(value: unknown): AnswerFrame | undefined {
  const frame = record(value);
  if (frame === undefined || typeof frame.rid !== 'string') return undefined;
  switch (frame.type) {
    case 'response':
      return typeof frame.status === 'number' && typeof frame.body === 'string' && stringMap(frame.headers) !== undefined ? (frame as AnswerFrame) : undefined;
    case 'head':
      return typeof frame.status === 'number' && stringMap(frame.headers) !== undefined ? (frame as AnswerFrame) : undefined;
    case 'chunk':
      return typeof frame.data === 'string' ? (frame as AnswerFrame) : undefined;
    case 'end':
      return frame as AnswerFrame;
    default:
      return undefined;
  }
}

/** `text` cut into pieces of at most PART_CHARS (none for an empty text). */
export function parts(text: string): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length; at += PART_CHARS) out.push(text.slice(at, at + PART_CHARS));
  return out;
}
