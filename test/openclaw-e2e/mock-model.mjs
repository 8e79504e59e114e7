// A scripted OpenAI-compatible model on 127.0.0.1 for the OpenClaw end-to-end tests: no language
// model runs here, so this plays one, by rules the tests rely on. It answers GET /v1/models and
// POST /v1/chat/completions (plain JSON, or SSE chunks ending in [DONE] when asked to stream),
// and appends every request it gets to the JSON-lines file named by MOCK_MODEL_LOG.
//
// The rules, on the newest user message:
//   - a tool result after it: the turn ends with "TOOL RESULT:" and that result's text;
//   - "CALL <tool> <json>": a call of that tool with those arguments (through OpenClaw's
//     tool_call when the tool is in its deferred directory rather than offered directly);
//   - an [A2A:task id=X …] whose text asks "which city" (and holds no answer): an A2A-Lite
//     question, [A2A:status task=X state=input-required];
//   - any other [A2A:task id=X …]: an A2A-Lite result, [A2A:result task=X state=completed];
//   - anything else: "ok".
// It prints {"port": N} on its first line once it listens.
import { appendFileSync } from 'node:fs';
import { createServer } from 'node:http';

const log = process.env.MOCK_MODEL_LOG;
let calls = 0;

function textOf(content) {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part) => (typeof part === 'string' ? part : (part?.text ?? ''))).join('\n');
  return '';
}

/** A user message someone wrote, not the context OpenClaw adds to every turn as one. */
const isSpeech = (m) => m.role === 'user' && !textOf(m.content).trimStart().startsWith('<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT');

function reply(messages, offered) {
  const lastUser = messages.findLastIndex(isSpeech);
  const tool = messages.slice(lastUser + 1).findLast((m) => m.role === 'tool');
  if (tool !== undefined) return { text: `TOOL RESULT:\n${textOf(tool.content)}` };
  // What the user said this turn: every user message since the model last spoke.
  const lastAssistant = messages.findLastIndex((m) => m.role === 'assistant');
  const said = messages
    .slice(lastAssistant + 1)
    .filter(isSpeech)
    .map((m) => textOf(m.content))
    .join('\n');
  const call = /CALL (\w+) (\{.*?\})\s*(?:\n|$)/s.exec(said);
  if (call) {
    // A tool OpenClaw lists in its deferred directory is called through its tool_call tool.
    const direct = offered.includes(call[1]);
    return { tool: direct ? { name: call[1], arguments: call[2] } : { name: 'tool_call', arguments: JSON.stringify({ id: call[1], args: JSON.parse(call[2]) }) } };
  }
  const task = /\[A2A:task id=([^\s\]]+)/.exec(said);
  if (task && /which city/i.test(said) && !/Lisbon/.test(said)) return { text: `[A2A:status task=${task[1]} state=input-required]\nWhich city should I look at?` };
  if (task) return { text: `[A2A:result task=${task[1]} state=completed]\nanswer from the OpenClaw agent` };
  if (/Lisbon/.test(said)) {
    // The answer to an earlier question: the task is the one the conversation is about.
    const asked = messages.filter(isSpeech).map((m) => /\[A2A:task id=([^\s\]]+)/.exec(textOf(m.content))?.[1]).filter(Boolean).at(-1);
    return { text: `[A2A:result task=${asked ?? 'unknown'} state=completed]\nLisbon it is` };
  }
  return { text: 'ok' };
}

function completion(model, answer) {
  calls += 1;
  const message = answer.tool
    ? { role: 'assistant', content: null, tool_calls: [{ id: `call_${calls}`, type: 'function', function: answer.tool }] }
    : { role: 'assistant', content: answer.text };
  return { message, finish: answer.tool ? 'tool_calls' : 'stop', id: `chatcmpl-${calls}`, model };
}

const server = createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    if (req.method === 'GET' && req.url?.startsWith('/v1/models')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'scripted', object: 'model', created: 0, owned_by: 'tests' }] }));
      return;
    }
    if (req.method !== 'POST' || !req.url?.startsWith('/v1/chat/completions')) {
      res.writeHead(404).end();
      return;
    }
    let request;
    try {
      request = JSON.parse(body);
    } catch {
      res.writeHead(400).end();
      return;
    }
    if (log) appendFileSync(log, `${JSON.stringify({ messages: request.messages, tools: (request.tools ?? []).map((t) => t.function?.name) })}\n`);
    const offered = (request.tools ?? []).map((t) => t.function?.name);
    const made = completion(request.model, reply(request.messages ?? [], offered));
    const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
    if (!request.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: made.id, object: 'chat.completion', created: Math.floor(Date.now() / 1000), model: made.model, choices: [{ index: 0, message: made.message, finish_reason: made.finish }], usage }));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const chunk = (delta, finish = null, extra = {}) =>
      res.write(`data: ${JSON.stringify({ id: made.id, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: made.model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`);
    chunk({ role: 'assistant', content: '' });
    if (made.message.tool_calls) chunk({ tool_calls: made.message.tool_calls.map((c, index) => ({ index, ...c })) });
    else chunk({ content: made.message.content });
    chunk({}, made.finish, { usage });
    res.end('data: [DONE]\n\n');
  });
});

server.listen(Number(process.env.MOCK_MODEL_PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
