// What the hub reads from an A2A card (either version) and how it points the card at itself:
// the name, version, skills and tags for search, and the card's addresses rewritten so that a
// client that fetched it from the hub keeps calling through the hub.

import { jsonDepth } from '../json-depth.js';

export interface CardSkill {
  id: string;
  name: string;
  description: string;
  tags: string[];
}

export interface CardView {
  name: string;
  description: string;
  version: string;
  skills: CardSkill[];
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** The parts of `card` the registry searches; missing fields read as empty. */
export function viewOf(card: Record<string, unknown>): CardView {
  const skills = Array.isArray(card.skills) ? card.skills : [];
  return {
    name: text(card.name),
    description: text(card.description),
    version: text(card.version) || '0',
    skills: skills
      .filter((skill): skill is Record<string, unknown> => typeof skill === 'object' && skill !== null)
      .map((skill) => ({ id: text(skill.id), name: text(skill.name), description: text(skill.description), tags: Array.isArray(skill.tags) ? skill.tags.filter((tag): tag is string => typeof tag === 'string') : [] })),
  };
}

/**
 * The deepest card the hub stores: as deep as the card validator allows. Deeper, copying or
 * writing it out (structuredClone, JSON.stringify) could run out of stack.
 */
const MAX_CARD_DEPTH = 32;

/** A card as the hub accepts it: an object with a name and a skills list, nested at most 32 levels. */
export function cardProblem(card: unknown): string | undefined {
  if (typeof card !== 'object' || card === null || Array.isArray(card)) return 'the agent card is not a JSON object';
  if (jsonDepth(card, MAX_CARD_DEPTH) > MAX_CARD_DEPTH) return `the agent card nests deeper than ${MAX_CARD_DEPTH} levels`;
  const record = card as Record<string, unknown>;
  if (typeof record.name !== 'string' || record.name === '') return 'the agent card has no "name"';
  if (!Array.isArray(record.skills)) return 'the agent card has no "skills" list';
  return undefined;
}

/** Every interface URL a card names, in 1.0 (`supportedInterfaces`) and 0.3 (`url`, `additionalInterfaces`) form. */
function interfaceUrls(card: Record<string, unknown>): string[] {
  const urls: string[] = [];
  if (typeof card.url === 'string') urls.push(card.url);
  for (const key of ['supportedInterfaces', 'additionalInterfaces']) {
    const list = card[key];
    if (Array.isArray(list)) for (const entry of list) if (typeof (entry as { url?: unknown })?.url === 'string') urls.push((entry as { url: string }).url);
  }
  return urls;
}

/**
 * The base all of a card's interfaces sit under: the shortest of their URLs, less a trailing
 * `/jsonrpc` (serve's JSON-RPC path). Empty when the card names none.
 */
export function cardBase(card: Record<string, unknown>): string {
  const urls = interfaceUrls(card).map((url) => url.replace(/\/jsonrpc\/?$/, '').replace(/\/+$/, ''));
  return urls.sort((a, b) => a.length - b.length)[0] ?? '';
}

/**
 * `card` with each interface URL under `from` moved under `to` (the agent's address at the
 * hub). URLs elsewhere are left alone: they are the agent's choice to publish.
 */
export function pointedAt(card: Record<string, unknown>, from: string, to: string): Record<string, unknown> {
  const move = (url: unknown): unknown => {
    if (typeof url !== 'string' || from === '') return url;
    if (url === from || url.startsWith(`${from}/`)) return `${to}${url.slice(from.length)}`;
    return url;
  };
  const out: Record<string, unknown> = { ...card };
  if (typeof out.url === 'string') out.url = move(out.url);
  for (const key of ['supportedInterfaces', 'additionalInterfaces']) {
    const list = out[key];
    if (Array.isArray(list)) out[key] = list.map((entry: unknown) => (typeof entry === 'object' && entry !== null ? { ...(entry as Record<string, unknown>), url: move((entry as { url?: unknown }).url) } : entry));
  }
  return out;
}

/**
 * The paths, relative to `base`, where `card` says its agent serves JSON-RPC, with the two every
 * a2a-lite agent serves (`/` and `/jsonrpc`).
 */
export function rpcPathsOf(card: Record<string, unknown>, base: string): Set<string> {
  const paths = new Set(['/', '/jsonrpc']);
  const root = base.replace(/\/+$/, '');
  const add = (url: unknown, binding: unknown): void => {
    if (typeof url !== 'string' || (binding !== undefined && binding !== 'JSONRPC')) return;
    const clean = url.replace(/\/+$/, '');
    if (clean.startsWith(`${root}/`)) paths.add(clean.slice(root.length));
  };
  add(card.url, card.preferredTransport ?? 'JSONRPC');
  for (const key of ['supportedInterfaces', 'additionalInterfaces']) {
    const list = card[key];
    if (Array.isArray(list)) for (const entry of list) add((entry as { url?: unknown })?.url, (entry as { protocolBinding?: unknown; transport?: unknown })?.protocolBinding ?? (entry as { transport?: unknown })?.transport);
  }
  return paths;
}
