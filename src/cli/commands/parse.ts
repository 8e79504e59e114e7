// `a2a-lite parse`: a chat message in, its A2A-Lite reading out as JSON.

import { parse, parseAll } from '../../protocol/parse.js';
import type { ParsedMessage } from '../../protocol/types.js';
import { isValid, validate } from '../../protocol/validate.js';
import { parseOptions } from '../args.js';
import type { Command } from '../context.js';
import { printJson } from '../output.js';
import { messageText } from './message-input.js';

export const command: Command = {
  usage: 'a2a-lite parse [TEXT] [--all]',
  help: `Reads a chat message and prints it as JSON: type, params, body, attachments, the repairs
made to read it (warnings), the rule problems found (problems) and whether it is valid.
Text without an [A2A:…] header is type "plain". Reads stdin when TEXT is absent.

options:
  --all   print every message in the text (a JSON array), not only the first

examples:
  a2a-lite parse '[A2A:status task=research-001 state=working progress=50%]'
  pbpaste | a2a-lite parse --all`,
  async run(args, context) {
    const { values, positionals } = parseOptions('parse', args, { all: { type: 'boolean' } });
    const text = await messageText('parse', positionals, context);
    printJson(context, values.all ? parseAll(text).map(describe) : describe(parse(text)));
    return 0;
  },
};

/** The JSON the CLI prints for one parsed message. */
export function describe(message: ParsedMessage) {
  const problems = validate(message);
  return {
    type: message.type,
    params: message.params,
    body: message.body,
    attachments: message.attachments,
    warnings: message.warnings,
    problems,
    valid: isValid(problems),
  };
}
