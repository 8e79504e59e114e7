// `a2a-lite format`: builds a protocol message from the command line and refuses one that
// breaks the rules, so what an agent sends is always valid.

import { LiteError } from '../../errors.js';
import { format } from '../../protocol/format.js';
import type { Message } from '../../protocol/types.js';
import { isValid, refusal, validate } from '../../protocol/validate.js';
import { parseOptions, required } from '../args.js';
import type { Command, Context } from '../context.js';
import { readStdin, stdinIsPiped } from '../input.js';
import { note, printJson, printLine } from '../output.js';

export const command: Command = {
  usage: 'a2a-lite format TYPE [key=value …] [--body TEXT | --body - | stdin] [--attach NAME …]',
  help: `Writes one A2A-Lite message, ready to send. TYPE is discover, card, task, status, result,
cancel or ack. Values with spaces are quoted for you. The body comes from --body, from
stdin with --body -, or from a shell pipe. A message that breaks its type's rules is
refused (exit 3) with each problem named.

options:
  --body TEXT             the natural-language body
  --attach NAME           an attachment line (repeat for several files)
  --attachment-label L    "附件" (default, the protocol's own) or "attachment"

examples:
  a2a-lite format task id=research-001 skill=research --body "帮我调研 AI Agent 生态，时间范围过去一周。"
  a2a-lite format status task=research-001 state=working progress=50% --body "正在收集资料"
  a2a-lite format result task=email-001 state=completed --body "邮件已发送" --attach receipt.txt`,
  async run(args, context) {
    const { values, positionals } = parseOptions('format', args, {
      body: { type: 'string' },
      attach: { type: 'string', multiple: true },
      'attachment-label': { type: 'string' },
    });
    const [type, ...pairs] = positionals;
    const message: Message = {
      type: required('format', type, 'TYPE'),
      params: paramsFrom(pairs),
      body: await bodyFrom(values.body, context),
      attachments: values.attach ?? [],
    };
    const label = values['attachment-label'] ?? '附件';
    if (label !== '附件' && label !== 'attachment') throw new LiteError('USAGE', 'format: --attachment-label is "附件" or "attachment"');
    const problems = validate(message);
    if (!isValid(problems)) throw refusal(problems);
    const text = format(message, { attachmentLabel: label });
    if (values.json) {
      printJson(context, { text, message, problems });
    } else {
      for (const p of problems) note(context, p.message);
      printLine(context, text);
    }
    return 0;
  },
};

/** Reads `key=value` words into params, keeping their order. */
export function paramsFrom(pairs: readonly string[]): Record<string, string> {
  const params: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new LiteError('USAGE', `format: expected key=value, got ${JSON.stringify(pair)}`);
    Object.defineProperty(params, pair.slice(0, at), { value: pair.slice(at + 1), enumerable: true, writable: true, configurable: true });
  }
  return params;
}

/** The body from --body, from stdin for `--body -`, from a shell pipe, or empty. */
export async function bodyFrom(body: string | undefined, context: Context): Promise<string> {
  if (body === '-') return readStdin(context, 'the body');
  if (body !== undefined) return body;
  return stdinIsPiped(context) ? readStdin(context, 'the body') : '';
}
