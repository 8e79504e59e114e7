// `a2a-lite validate`: exit 0 only for a message that follows the per-type rules.

import { ERROR_TABLE } from '../../errors.js';
import { parse } from '../../protocol/parse.js';
import { isValid, validate } from '../../protocol/validate.js';
import { parseOptions } from '../args.js';
import type { Command } from '../context.js';
import { printJson, printLine } from '../output.js';
import { messageText } from './message-input.js';

export const command: Command = {
  usage: 'a2a-lite validate [TEXT]',
  help: `Checks one message against the rules of its type (required params, states, progress,
result only with a final state). Exits 0 when valid, 3 otherwise, listing every problem.
Notices (unknown params or types, kept for forward compatibility) do not fail it.

example:
  a2a-lite validate '[A2A:result task=email-001 state=working]'`,
  async run(args, context) {
    const { values, positionals } = parseOptions('validate', args, {});
    const message = parse(await messageText('validate', positionals, context));
    const problems = validate(message);
    const valid = isValid(problems);
    if (values.json) {
      printJson(context, { valid, type: message.type, problems, warnings: message.warnings });
    } else {
      printLine(context, valid ? `valid ${message.type} message` : `invalid ${message.type} message`);
      for (const p of problems) printLine(context, `  ${p.level} ${p.code}${p.param ? ` (${p.param})` : ''}: ${p.message}`);
      for (const w of message.warnings) printLine(context, `  repaired ${w.code}: ${w.message}`);
    }
    return valid ? 0 : ERROR_TABLE.INVALID_MESSAGE.exit;
  },
};
