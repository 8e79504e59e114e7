// The exec program of the serve crash test: says it is working, writes data.bin (64 KiB whose
// bytes follow from the task text, see artifact-content.ts), and ends the task with it attached.
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';

const SIZE = 64 * 1024;

/** The same bytes as `artifactContent` in artifact-content.ts: SHA-256 of "<text>:<block>", block after block. */
function content(text) {
  const bytes = Buffer.alloc(SIZE);
  for (let block = 0; block * 32 < SIZE; block += 1) createHash('sha256').update(`${text}:${block}`).digest().copy(bytes, block * 32);
  return bytes;
}

let input = '';
process.stdin.setEncoding('utf8');
for await (const chunk of process.stdin) input += chunk;
// stdin is "[A2A:task id=…]\n<text>\n"; the text is everything after the header line.
const text = input.split('\n').slice(1).join('\n').trim();
const id = process.env.A2A_TASK_ID;

process.stdout.write(`[A2A:status task=${id} state=working progress=50%]\nwriting data.bin\n`);
// A moment of work, so that kills land while tasks are running, not only between them.
await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 120)));
const bytes = content(text);
writeFileSync('data.bin', bytes);
const digest = createHash('sha256').update(bytes).digest('hex');
process.stdout.write(`[A2A:result task=${id} state=completed]\nsha256 ${digest}\n[附件: data.bin]\n`);
