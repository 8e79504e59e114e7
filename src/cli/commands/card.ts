// `a2a-lite card`: this agent's own Agent Card: init, validate, show.

import { existsSync } from 'node:fs';
import { render, type Lang } from '../../card/render.js';
import type { LiteCard, Skill } from '../../card/types.js';
import { checkCard } from '../../card/validate.js';
import { ERROR_TABLE, LiteError } from '../../errors.js';
import { newCard, readOwnCard, writeOwnCard } from '../../home/own-card.js';
import { atMost, parseOptions, required } from '../args.js';
import type { Command, Context } from '../context.js';
import { commandGroup, type Subcommand } from '../group.js';
import { signSubcommand } from './card-sign.js';
import { parseJson, readInput } from '../input.js';
import { printJson, printLine } from '../output.js';
import { openStores } from '../stores.js';

const SUBCOMMANDS = {
  init: {
    run: init,
    usage: 'a2a-lite card init --id ID --name NAME [--framework F] [--skill SPEC …] [--channel C …] [options]',
    help: `Creates agent-card.json in the home. A skill is "id:name:description" or a JSON object
(with inputModes/outputModes/tags). The card is validated and scanned for credentials
before it is written; an existing card is kept unless --force.

options:
  --id ID, --name NAME        the agent (required)
  --framework F               clawdbot, openclaw (default) or other
  --skill SPEC                a skill (repeat for several)
  --channel C                 where peers reach you, e.g. discord:jiajia (repeat)
  --description TEXT, --agent-version V
  --file-transfer, --streaming, --async-tasks, --push-notifications   capabilities on
  --max-file-size SIZE, --max-concurrent-tasks N
  --contact NAME, --timezone TZ
  --force                     replace an existing card

example:
  a2a-lite card init --id jiajia --name 佳佳 --framework clawdbot --channel discord:jiajia \\
    --skill "research:调研助手:收集和分析特定主题的资料" --file-transfer`,
  },
  validate: {
    run: validateCommand,
    usage: 'a2a-lite card validate [FILE | -]',
    help: `Checks a card (default: the home's agent-card.json) against the schema and for credentials.
Prints each problem with its JSON path and rule; exits 0 when valid, 3 when invalid, 6 when
it carries a credential.

example:
  a2a-lite card validate ./agent-card.json`,
  },
  show: {
    run: show,
    usage: 'a2a-lite card show [--lang zh|en]',
    help: `Prints this agent's card as the [A2A:card] reply to send when a peer asks [A2A:discover].
With --json, prints the card itself.

example:
  a2a-lite card show --lang en`,
  },
  sign: signSubcommand,
} satisfies Record<string, Subcommand>;

export const command: Command = commandGroup('card', "This agent's Agent Card (agent-card.json in the home).", SUBCOMMANDS);

function init(args: string[], context: Context): number {
  const { values, positionals } = parseOptions('card init', args, {
    id: { type: 'string' },
    name: { type: 'string' },
    framework: { type: 'string' },
    skill: { type: 'string', multiple: true },
    channel: { type: 'string', multiple: true },
    description: { type: 'string' },
    'agent-version': { type: 'string' },
    'file-transfer': { type: 'boolean' },
    streaming: { type: 'boolean' },
    'async-tasks': { type: 'boolean' },
    'push-notifications': { type: 'boolean' },
    'max-file-size': { type: 'string' },
    'max-concurrent-tasks': { type: 'string' },
    contact: { type: 'string' },
    timezone: { type: 'string' },
    force: { type: 'boolean' },
  });
  atMost('card init', positionals, 0);
  const max = values['max-concurrent-tasks'];
  if (max && !/^\d+$/.test(max)) throw new LiteError('USAGE', 'card init: --max-concurrent-tasks is a whole number');
  const card = newCard({
    id: required('card init', values.id, '--id'),
    name: required('card init', values.name, '--name'),
    framework: values.framework,
    description: values.description,
    version: values['agent-version'],
    skills: (values.skill ?? []).map(skillFrom),
    channels: values.channel,
    capabilities: { streaming: values.streaming, fileTransfer: values['file-transfer'], asyncTasks: values['async-tasks'], pushNotifications: values['push-notifications'] },
    maxFileSize: values['max-file-size'],
    maxConcurrentTasks: max ? Number(max) : undefined,
    contact: values.contact,
    timezone: values.timezone,
  });
  const stores = openStores(values, context);
  const { paths } = stores;
  writeOwnCard(stores, card, values.force === true);
  if (values.json) printJson(context, { path: paths.card, card });
  else printLine(context, `wrote ${paths.card} (${card.agent.name}, ${card.skills.length} skill${card.skills.length === 1 ? '' : 's'})`);
  return 0;
}

/** `id:name:description` (the description may hold more colons) or a JSON object. */
function skillFrom(spec: string): Skill {
  if (spec.trimStart().startsWith('{')) return parseJson(spec, 'a --skill JSON object') as Skill;
  const [id = '', name, ...description] = spec.split(':');
  if (id.trim() === '') throw new LiteError('USAGE', `card init: --skill ${JSON.stringify(spec)} needs an id: "id:name:description"`);
  return { id: id.trim(), name: (name ?? id).trim(), description: description.join(':').trim() };
}

async function validateCommand(args: string[], context: Context): Promise<number> {
  const { values, positionals } = parseOptions('card validate', args, {});
  atMost('card validate', positionals, 1);
  const path = positionals[0] ?? openStores(values, context).paths.card;
  if (positionals[0] === undefined && !existsSync(path)) {
    throw new LiteError('CARD_NOT_FOUND', `no card at ${path}; create one with: a2a-lite card init`);
  }
  const card = parseJson(await readInput(context, path, 'card validate'), path === '-' ? 'stdin' : path);
  const { valid, errors } = checkCard(card);
  if (values.json) printJson(context, { valid, path, errors });
  else {
    printLine(context, valid ? `${path}: valid` : `${path}: invalid`);
    for (const e of errors) printLine(context, `  ${e.path} (${e.rule}): ${e.message}`);
  }
  if (valid) return 0;
  return ERROR_TABLE[errors.some((e) => e.rule === 'credential') ? 'CARD_HAS_CREDENTIAL' : 'INVALID_CARD'].exit;
}

function show(args: string[], context: Context): number {
  const { values, positionals } = parseOptions('card show', args, { lang: { type: 'string' } });
  atMost('card show', positionals, 0);
  const lang = values.lang ?? 'zh';
  if (lang !== 'zh' && lang !== 'en') throw new LiteError('USAGE', 'card show: --lang is zh or en');
  const card = loadOwnCard(values, context);
  if (values.json) printJson(context, card);
  else printLine(context, render(card, lang as Lang));
  return 0;
}

/** This agent's card, validated; a clear error when there is none yet. */
export function loadOwnCard(values: { home?: string | undefined }, context: Context): LiteCard {
  return readOwnCard(openStores(values, context));
}
