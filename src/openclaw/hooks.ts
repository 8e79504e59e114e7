// The plugin's message hooks. Inbound (`before_dispatch`): every [A2A:…] message that arrives is
// recorded in the ledger before the model sees it, and [A2A:discover] is answered with this
// agent's card without the model. Outbound (`message_sending`): a message that breaks the
// protocol or carries a credential is not delivered, and the [A2A:…] messages that go out are
// recorded.

import { render, type Lang } from '../card/render.js';
import { recordMessages } from '../home/ledger-actions.js';
import { readOwnCard } from '../home/own-card.js';
import type { Stores } from '../home/stores.js';
import { parseAll } from '../protocol/parse.js';
import { validate } from '../protocol/validate.js';
import { credentialShapes } from '../secrets.js';
import type { PluginConfig } from './config.js';
import type { BeforeDispatchContext, BeforeDispatchEvent, BeforeDispatchResult, HostLogger, MessageContext, MessageSendingEvent, MessageSendingResult } from './host.js';

export interface HookDeps {
  config: PluginConfig;
  /** The stores of the agent a session belongs to. */
  stores(sessionKey: string | undefined): Stores;
  logger: HostLogger;
}

const HEADER = '[A2A:';

/** `before_dispatch`: record what came in, answer a discover. */
export function onInbound(deps: HookDeps) {
  return (event: BeforeDispatchEvent, context: BeforeDispatchContext): BeforeDispatchResult | undefined => {
    const text = event.body ?? event.content;
    if (typeof text !== 'string' || !text.includes(HEADER)) return undefined;
    const messages = parseAll(text);
    const sessionKey = context.sessionKey ?? event.sessionKey;
    const peer = peerName(event.senderId ?? context.senderId, context.conversationId, event.channel ?? context.channelId);
    let stores: Stores;
    try {
      stores = deps.stores(sessionKey);
    } catch (error) {
      deps.logger.warn(`a2a-lite: no home to record the message from ${peer} in: ${messageOf(error)}`);
      return undefined;
    }
    if (deps.config.record) {
      try {
        const { results, stopped } = recordMessages(stores, text, { from: peer });
        for (const { summary, change } of results) deps.logger.info(`a2a-lite: recorded task ${summary.id} from ${peer}: ${change} (${summary.state})`);
        if (stopped !== undefined) deps.logger.warn(`a2a-lite: the ledger refused a message from ${peer}: ${messageOf(stopped)}`);
      } catch (error) {
        deps.logger.warn(`a2a-lite: the ledger refused a message from ${peer}: ${messageOf(error)}`);
      }
    }
    // A bare [A2A:discover] is answered here; one that comes with words is for the model.
    const asksCard = messages.some((m) => m.type === 'discover') && messages.every((m) => (m.type === 'discover' || m.type === 'plain') && m.body.trim() === '');
    if (!asksCard || !deps.config.answerDiscover) return undefined;
    try {
      const card = readOwnCard(stores);
      return { handled: true, text: render(card, deps.config.lang ?? languageOf(text)) };
    } catch (error) {
      // No card yet: the model answers, and can create one with a2a_lite_card_init.
      deps.logger.warn(`a2a-lite: cannot answer [A2A:discover] from ${peer}: ${messageOf(error)}`);
      return undefined;
    }
  };
}

/** `message_sending`: hold back what breaks the protocol or carries a credential; record the rest. */
export function onOutbound(deps: HookDeps) {
  return (event: MessageSendingEvent, context: MessageContext): MessageSendingResult | undefined => {
    const text = event.content;
    if (typeof text !== 'string') return undefined;
    if (deps.config.checkOutbound) {
      const refusal = refusalOf(text);
      if (refusal !== undefined) {
        deps.logger.warn(`a2a-lite: held back a message to ${event.to}: ${refusal}`);
        return { cancel: true, cancelReason: `a2a-lite: ${refusal}` };
      }
    }
    if (deps.config.record && text.includes(HEADER)) {
      try {
        const to = peerName(event.to, context.conversationId, context.channelId);
        const { results, stopped } = recordMessages(deps.stores(context.sessionKey), text, { to });
        for (const { summary, change } of results) deps.logger.info(`a2a-lite: recorded task ${summary.id} to ${to}: ${change} (${summary.state})`);
        if (stopped !== undefined) deps.logger.warn(`a2a-lite: the ledger refused a message to ${event.to}: ${messageOf(stopped)}`);
      } catch (error) {
        deps.logger.warn(`a2a-lite: the ledger refused a message to ${event.to}: ${messageOf(error)}`);
      }
    }
    return undefined;
  };
}

/**
 * Why `text` must not go out, if it must not: a credential anywhere in it, or an A2A-Lite
 * message that breaks its type's rules (a missing task id, a state that does not exist, …).
 */
export function refusalOf(text: string): string | undefined {
  const kinds = credentialShapes(text);
  if (kinds.length > 0) return `the message holds what looks like a credential (${kinds.join(', ')}); credentials never go into messages`;
  if (!text.includes(HEADER)) return undefined;
  for (const message of parseAll(text)) {
    if (message.type === 'plain') continue;
    const errors = validate(message).filter((p) => p.level === 'error');
    if (errors.length > 0) return `[A2A:${message.type}] breaks the protocol: ${errors.map((p) => p.message).join('; ')}`;
  }
  return undefined;
}

/**
 * The peer a message came from or goes to, as the ledger names it: the sender (OpenClaw's a2a
 * channel gives the peer's configured name), else the conversation, else the channel; a
 * channel prefix such as `a2a:` is dropped.
 */
export function peerName(...candidates: (string | undefined)[]): string {
  const given = candidates.find((c) => typeof c === 'string' && c.trim() !== '') ?? 'unknown';
  const bare = given.replace(/^(a2a|channel|user):/i, '').trim();
  return bare === '' ? 'unknown' : bare.slice(0, 128);
}

/** zh when the question is written in Chinese, else en. */
function languageOf(text: string): Lang {
  return /[\u4e00-\u9fff]/.test(text) ? 'zh' : 'en';
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
