// `a2a-lite discover URL`: reads an A2A agent's card, caches it as an A2A-Lite card and prints
// it as the [A2A:card] reply a peer in chat would have sent.

import { render } from '../../card/render.js';
import { checkCardSignature, type CardTrust } from '../../client/card-trust.js';
import { cacheDiscovered, fetchAgentCard } from '../../client/discover.js';
import { fetchExtendedCard } from '../../client/extended-card.js';
import { credentialFor } from '../../client/peer.js';
import { LiteError } from '../../errors.js';
import { discoverFromHub } from '../../hub/hub-client.js';
import { atMost, parseOptions, required } from '../args.js';
import type { Command, Context } from '../context.js';
import { note, printJson, printLine } from '../output.js';
import { openStores } from '../stores.js';
import { readTrustKeys } from '../key-files.js';

export const command: Command = {
  usage: 'a2a-lite discover URL [--token-env NAME [--extended]] [--trust-key FILE …] [--require-signed] [--lang zh|en] [--json] | discover --hub URL [--skill S]',
  help: `Fetches the Agent Card of the A2A agent at URL (/.well-known/agent-card.json, else the older
/.well-known/agent.json), accepts 1.0 and 0.3 cards, and caches it in known-agents/ as an
A2A-Lite card whose channel is a2a:URL, with the interfaces to call it by. Discovering the
same URL again updates the entry. Prints the card as the [A2A:card] reply, and says whether
the card is signed (A2A §8.4), by which key, and whether the signature verified: against the
--trust-key files when given, else against the key set its "jku" names, fetched only from the
card's own origin (no redirects, at most 64 KiB). The second proves the card is the one the
holder of that origin's key signed, not who that is; a trusted key file proves who.

options:
  --token-env NAME  remember that this agent's token is in the environment variable NAME
                    (only the name is stored)
  --extended        with --token-env, also ask the agent for its extended card (the one it
                    gives authenticated clients, often with more skills) and cache that one
                    instead, when its card offers one (the token is read from NAME)
  --trust-key FILE  a public key (PEM, JWK or JWK set) to verify the card's signature with;
                    repeatable. Only these keys are then used.
  --require-signed  refuse (CARD_SIGNATURE_INVALID, nothing cached) a card that does not verify
  --hub URL         list the agents of the a2a-lite hub at URL (those offering --skill S) and
                    cache each as reached through the hub
  --lang zh|en      the language of the printed reply (default zh, as the protocol's examples)
  --json            print the cached lite card and what is known about calling it, as JSON

examples:
  a2a-lite discover http://127.0.0.1:7331
  a2a-lite discover https://agents.example.com/mexico --token-env MEXICO_TOKEN
  a2a-lite discover https://agents.example.com/mexico --token-env MEXICO_TOKEN --extended`,
  run,
};

async function run(args: string[], context: Context): Promise<number> {
  const { values, positionals } = parseOptions('discover', args, {
    'token-env': { type: 'string' },
    lang: { type: 'string' },
    hub: { type: 'string' },
    skill: { type: 'string' },
    extended: { type: 'boolean' },
    'trust-key': { type: 'string', multiple: true },
    'require-signed': { type: 'boolean' },
  });
  atMost('discover', positionals, values.hub === undefined ? 1 : 0);
  if (values.extended === true && values['token-env'] === undefined) throw new LiteError('USAGE', 'discover: --extended needs --token-env NAME: only an authenticated client gets the extended card');
  if (values.hub !== undefined && (values['trust-key'] !== undefined || values['require-signed'] === true)) throw new LiteError('USAGE', "discover: --trust-key and --require-signed check one agent's card (discover URL), not a hub's list");
  if (values.hub !== undefined) {
    if (values.extended === true) throw new LiteError('USAGE', 'discover: --extended reads one agent\'s card; give its URL instead of --hub');
    return fromHub(values.hub, values, context);
  }
  if (values.skill !== undefined) throw new LiteError('USAGE', 'discover: --skill chooses among the agents of a --hub');
  const trustKeys = values['trust-key'] === undefined ? undefined : readTrustKeys(context, values['trust-key'], '--trust-key');
  const url = required('discover', positionals[0], 'URL');
  const lang = values.lang ?? 'zh';
  if (lang !== 'zh' && lang !== 'en') throw new LiteError('USAGE', `discover: --lang is zh or en, not ${JSON.stringify(lang)}`);
  const tokenEnv = values['token-env'];
  if (tokenEnv !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(tokenEnv)) throw new LiteError('USAGE', 'discover: --token-env takes the name of an environment variable');
  const stores = openStores(values, context);
  const credential = values.extended === true ? credentialFor(undefined, context.env, tokenEnv) : undefined;
  let found = await fetchAgentCard(url);
  // The signature is the public card's: the extended one is the agent's answer to an authenticated call.
  const trust = await checkCardSignature(found.json, found.card.cardUrl, trustKeys === undefined ? {} : { trustKeys });
  if (values['require-signed'] && !trust.verified) throw new LiteError('CARD_SIGNATURE_INVALID', `the card at ${found.card.cardUrl}: ${trust.problem ?? 'it did not verify'}`, { signature: trust });
  const extended = credential !== undefined && found.card.extendedCard === true;
  if (credential !== undefined) {
    if (extended) found = { ...found, card: await fetchExtendedCard(found.card, credential) };
    else note(context, 'the agent offers no extended card; caching its public card');
  }
  const { agent, replaced } = cacheDiscovered(stores.agents, found, tokenEnv === undefined ? {} : { tokenEnv });
  if (values.json) {
    printJson(context, { id: agent.card.agent.id, replaced, extended, card: agent.card, a2a: agent.cache.a2a, unsupported: found.card.unsupported, signature: trust });
    return 0;
  }
  printLine(context, render(agent.card, lang));
  const via = agent.cache.a2a?.interfaces[0];
  note(context, signatureLine(trust));
  note(context, `${replaced ? 'updated' : 'cached'} ${agent.card.agent.id}${extended ? ' (its extended card)' : ''} in ${agent.path}${via ? `; calls go to ${via.url} (${via.binding} ${via.version})` : ''}`);
  if (found.card.security.bearer || found.card.security.apiKey) {
    if (tokenEnv === undefined && agent.cache.tokenEnv === undefined) note(context, 'this agent wants credentials: pass --token-env NAME here or to send');
  }
  return 0;
}

/** One sentence on the card's signature: none, verified by which key and how, or what is wrong. */
function signatureLine(trust: CardTrust): string {
  if (!trust.signed) return 'the card is not signed';
  const first = trust.checks[0];
  if (!trust.verified) return `the card is signed${first?.kid === undefined ? '' : ` (key "${first.kid}"${first.alg === undefined ? '' : `, ${first.alg}`})`} but NOT verified: ${trust.problem ?? ''}`;
  const how = trust.keys === 'trusted' ? 'a trusted key (--trust-key)' : `the key set its own origin publishes (${trust.jku ?? ''})`;
  return `the card is signed by key "${trust.kid ?? ''}" (${trust.alg ?? ''}), verified against ${how}`;
}

/** `discover --hub URL [--skill S]`: caches every agent of the hub (offering S) as reached through it. */
async function fromHub(hub: string, values: { 'token-env'?: string; skill?: string; home?: string; json?: boolean }, context: Context): Promise<number> {
  const tokenEnv = values['token-env'];
  const token = tokenEnv === undefined ? undefined : credentialFor(undefined, context.env, tokenEnv)?.token;
  const stores = openStores(values, context);
  const agents = await discoverFromHub(stores, hub, values.skill, { ...(token === undefined ? {} : { token }), ...(tokenEnv === undefined ? {} : { tokenEnv }) });
  if (values.json) {
    printJson(context, { agents: agents.map((agent) => ({ id: agent.card.agent.id, name: agent.card.agent.name, url: agent.cache.a2a?.interfaces[0]?.url, skills: agent.card.skills.map((skill) => skill.id) })) });
    return 0;
  }
  if (agents.length === 0) note(context, `the hub at ${hub} has no agent${values.skill === undefined ? '' : ` offering "${values.skill}"`}`);
  for (const agent of agents) printLine(context, `${agent.card.agent.id}\t${agent.card.agent.name}\t${agent.card.skills.map((skill) => skill.id).join(',')}\t${agent.cache.a2a?.interfaces[0]?.url ?? ''}`);
  if (agents.length > 0) note(context, `cached ${agents.length} agent(s) of the hub in known-agents/; send to one by its id`);
  return 0;
}
