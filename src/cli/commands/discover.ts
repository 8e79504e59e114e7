// `a2a-lite discover URL`: reads an A2A agent's card, caches it as an A2A-Lite card and prints
// it as the [A2A:card] reply a peer in chat would have sent.

import { render } from '../../card/render.js';
import { cacheDiscovered, fetchAgentCard } from '../../client/discover.js';
import { fetchExtendedCard } from '../../client/extended-card.js';
import { credentialFor } from '../../client/peer.js';
import { LiteError } from '../../errors.js';
import { discoverFromHub } from '../../hub/hub-client.js';
import { atMost, parseOptions, required } from '../args.js';
import type { Command, Context } from '../context.js';
import { note, printJson, printLine } from '../output.js';
import { openStores } from '../stores.js';

export const command: Command = {
  usage: 'a2a-lite discover URL [--token-env NAME [--extended]] [--lang zh|en] [--json] | discover --hub URL [--skill S]',
  help: `Fetches the Agent Card of the A2A agent at URL (/.well-known/agent-card.json, else the older
/.well-known/agent.json), accepts 1.0 and 0.3 cards, and caches it in known-agents/ as an
A2A-Lite card whose channel is a2a:URL, with the interfaces to call it by. Discovering the
same URL again updates the entry. Prints the card as the [A2A:card] reply.

options:
  --token-env NAME  remember that this agent's token is in the environment variable NAME
                    (only the name is stored)
  --extended        with --token-env, also ask the agent for its extended card (the one it
                    gives authenticated clients, often with more skills) and cache that one
                    instead, when its card offers one; the token is read from NAME for this
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
  const { values, positionals } = parseOptions('discover', args, { 'token-env': { type: 'string' }, lang: { type: 'string' }, hub: { type: 'string' }, skill: { type: 'string' }, extended: { type: 'boolean' } });
  atMost('discover', positionals, values.hub === undefined ? 1 : 0);
  if (values.extended === true && values['token-env'] === undefined) throw new LiteError('USAGE', 'discover: --extended needs --token-env NAME: only an authenticated client gets the extended card');
  if (values.hub !== undefined) {
    if (values.extended === true) throw new LiteError('USAGE', 'discover: --extended reads one agent\'s card; give its URL instead of --hub');
    return fromHub(values.hub, values, context);
  }
  if (values.skill !== undefined) throw new LiteError('USAGE', 'discover: --skill chooses among the agents of a --hub');
  const url = required('discover', positionals[0], 'URL');
  const lang = values.lang ?? 'zh';
  if (lang !== 'zh' && lang !== 'en') throw new LiteError('USAGE', `discover: --lang is zh or en, not ${JSON.stringify(lang)}`);
  const tokenEnv = values['token-env'];
  if (tokenEnv !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(tokenEnv)) throw new LiteError('USAGE', 'discover: --token-env takes the name of an environment variable');
  const stores = openStores(values, context);
  const credential = values.extended === true ? credentialFor(undefined, context.env, tokenEnv) : undefined;
  let found = await fetchAgentCard(url);
  const extended = credential !== undefined && found.card.extendedCard === true;
  if (credential !== undefined) {
    if (extended) found = { ...found, card: await fetchExtendedCard(found.card, credential) };
    else note(context, 'the agent offers no extended card; caching its public card');
  }
  const { agent, replaced } = cacheDiscovered(stores.agents, found, tokenEnv === undefined ? {} : { tokenEnv });
  if (values.json) {
    printJson(context, { id: agent.card.agent.id, replaced, extended, card: agent.card, a2a: agent.cache.a2a, unsupported: found.card.unsupported });
    return 0;
  }
  printLine(context, render(agent.card, lang));
  const via = agent.cache.a2a?.interfaces[0];
  note(context, `${replaced ? 'updated' : 'cached'} ${agent.card.agent.id}${extended ? ' (its extended card)' : ''} in ${agent.path}${via ? `; calls go to ${via.url} (${via.binding} ${via.version})` : ''}`);
  if (found.card.security.bearer || found.card.security.apiKey) {
    if (tokenEnv === undefined && agent.cache.tokenEnv === undefined) note(context, 'this agent wants credentials: pass --token-env NAME here or to send');
  }
  return 0;
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
