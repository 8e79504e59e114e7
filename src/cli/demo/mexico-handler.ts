// Mexico's program for `a2a-lite demo`, run by `a2a-lite serve --exec` once per task: it reads
// the e-mail task on stdin, checks the attachment arrived in its task folder, and answers with
// a status and a result in A2A-Lite. Deterministic, and it sends no real e-mail.

import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { format } from '../../protocol/format.js';
import { parseAll } from '../../protocol/parse.js';

const task = process.env.A2A_TASK_ID ?? 'task';
const folder = process.env.A2A_TASK_DIR ?? process.cwd();
const request = parseAll(readFileSync(0, 'utf8')).find((m) => m.type === 'task');
const say = (text: string): void => void process.stdout.write(`${text}\n\n`);

say(format({ type: 'status', params: { task, state: 'working', progress: '40' }, body: '正在撰写邮件，附上报告……', attachments: [] }));
const files = (request?.attachments ?? []).map((name) => {
  try {
    return `${name}（${statSync(join(folder, name)).size} 字节）`;
  } catch {
    return `${name}（未收到）`;
  }
});
// The recipient is named in the task ("…发给安娜。"); 鲁伊科斯塔 unless another is. A task asking
// to confirm (the demo plan's last step) counts the e-mails its text reports as sent.
const words = request?.body ?? '';
const who = /^把这份调研报告发给(.+?)。/.exec(words)?.[1] ?? '鲁伊科斯塔';
const sent = words.split('邮件已发给').length - 1;
const body = words.startsWith('请确认')
  ? `已确认：${sent} 封邮件都已发出。\n（演示：邮件没有真正发出。）`
  : [
      `邮件已发给${who}${who === '鲁伊科斯塔' ? ' <rui.costa@example.com>' : ''}，主题「AI 代理调研报告」。`,
      files.length > 0 ? `附件：${files.join('、')}。` : '没有附件。',
      '（演示：邮件没有真正发出。）',
    ].join('\n');
say(format({ type: 'result', params: { task, state: 'completed' }, body, attachments: [] }));
