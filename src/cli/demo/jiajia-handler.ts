// 佳佳's program for `a2a-lite demo`, run by `a2a-lite serve --exec` once per task: it writes a
// research report into its task folder, finds Mexico with `a2a-lite discover`, has it e-mail the
// report with `a2a-lite send`, and answers with the report attached. Deterministic; the report is
// a fixed text about the topic asked for.

import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { format } from '../../protocol/format.js';
import { parseAll } from '../../protocol/parse.js';

const task = process.env.A2A_TASK_ID ?? 'task';
const folder = process.env.A2A_TASK_DIR ?? process.cwd();
const mexico = process.env.A2A_DEMO_PEER_URL ?? '';
const cli = fileURLToPath(new URL('../bin.js', import.meta.url));
const say = (text: string): void => void process.stdout.write(`${text}\n\n`);
const status = (progress: string, body: string): void => say(format({ type: 'status', params: { task, state: 'working', progress }, body, attachments: [] }));

const request = parseAll(readFileSync(0, 'utf8')).find((m) => m.type === 'task');
const topic = (request?.body ?? '').trim() || 'AI 代理';

status('20', '正在收集资料……');
const report = [
  '# 调研报告：AI 代理如何协作',
  '',
  `委托：${topic.split('\n')[0]}`,
  '',
  '## 要点',
  '',
  '1. 代理之间用带标签的自然语言消息交换任务：[A2A:task]、[A2A:status]、[A2A:result]。',
  '2. 每个代理发布一张 Agent Card，说明自己的技能；同伴的卡片缓存在 known-agents/ 里。',
  '3. 同一个代理也可以通过 HTTP 说标准的 A2A 协议（1.0 与 0.3），与任何 A2A 代理协作。',
  '',
].join('\n');
writeFileSync(join(folder, 'report.md'), report);
status('60', '报告已写好（report.md）。正在寻找能发邮件的同伴……');

const run = (args: string[]): { code: number; out: string; err: string } => {
  const result = spawnSync(process.execPath, [cli, ...args], { cwd: folder, encoding: 'utf8', env: process.env, timeout: 60_000 });
  return { code: result.status ?? 1, out: result.stdout ?? '', err: result.stderr ?? '' };
};

const found = run(['discover', mexico, '--json']);
if (found.code !== 0) {
  say(format({ type: 'result', params: { task, state: 'failed' }, body: `找不到 Mexico：${found.err.trim()}`, attachments: [] }));
  process.exit(0);
}
const peer = (JSON.parse(found.out) as { id: string }).id;
status('70', `找到了 ${peer}，它会发邮件。请它把报告发给鲁伊科斯塔……`);
const sent = run(['send', peer, '帮我把这份调研报告发给鲁伊科斯塔。', '--skill', 'email', '--attach', 'report.md']);
const answer = parseAll(sent.out).find((m) => m.type === 'result');
if (sent.code !== 0 || answer === undefined) {
  say(format({ type: 'result', params: { task, state: 'failed' }, body: `Mexico 没有完成邮件任务（退出码 ${sent.code}）：${sent.err.trim()}`, attachments: [] }));
  process.exit(0);
}
status('90', `Mexico 回复：${answer.body.split('\n')[0]}`);
say(format({ type: 'result', params: { task, state: 'completed' }, body: '调研报告已完成（见附件），并已请 Mexico 发给鲁伊科斯塔。', attachments: ['report.md'] }));
