// Baseline: the least a node:http server can do per A2A request — read the body, parse the JSON,
// answer a fixed-shape JSON-RPC result. No agent, no store.
import { createServer } from 'node:http';

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const request = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const text = request.params?.message?.parts?.[0]?.text ?? '';
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: request.id,
      result: { task: { id: 't', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED', timestamp: new Date().toISOString() }, artifacts: [{ artifactId: 'a', parts: [{ text: `echo: ${text}` }] }] } },
    });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.listen(0, '127.0.0.1', () => console.log(`READY http://127.0.0.1:${server.address().port}/`));
