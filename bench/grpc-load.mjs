// The gRPC load generator: C calls at a time of SendMessage (lf.a2a.v1.A2AService), each one
// sent again as soon as it is answered, for D seconds after a warm-up, over one channel (HTTP/2
// multiplexes them, as gRPC clients do); prints requests/s and latency percentiles as one JSON
// line, as load.mjs does for JSON-RPC.
import * as grpc from '@grpc/grpc-js';
import { fromDist } from './servers/dist.mjs';
import { drive } from './drive.mjs';

const [target, calls = '32', seconds = '5', warmup = '1'] = process.argv.slice(2);
const { grpcMethod, jsonToMessage } = await fromDist('grpc/service.js');
const method = grpcMethod('SendMessage');
// One request encoded once; each call writes its own number into the message id's digits.
const PLACEHOLDER = '000000000000';
const template = Buffer.from(jsonToMessage(method.input, { message: { messageId: `m-${PLACEHOLDER}`, role: 'ROLE_USER', parts: [{ text: 'hello' }] } }));
const at = template.indexOf(PLACEHOLDER);
const run = Math.random().toString(36).slice(2, 8);
let counter = 0;
const request = () => {
  const bytes = Buffer.from(template);
  bytes.write(`${run}${String((counter += 1)).padStart(6, '0')}`.slice(-PLACEHOLDER.length), at, 'latin1');
  return bytes;
};
const client = new grpc.Client(target, grpc.credentials.createInsecure(), { 'grpc.max_concurrent_streams': 1000 });
const metadata = new grpc.Metadata();
metadata.set('a2a-version', '1.0');
const same = (value) => value;
const send = () =>
  new Promise((resolve) => {
    client.makeUnaryRequest(method.path, same, same, request(), metadata, (error, answer) => resolve(error === null && answer.length > 0));
  });

console.log(JSON.stringify(await drive(send, { concurrency: Number(calls), seconds: Number(seconds), warmup: Number(warmup) })));
client.close();
