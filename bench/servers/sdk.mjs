// The official @a2a-js/sdk serving an echo agent with its in-memory store: the peer
// implementation a2a-lite is compared with. JSON-RPC on express by default; `grpc` serves its
// gRPC binding instead (grpcService on @grpc/grpc-js) and prints the target.
import { DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { echoCard, echoExecutor } from './sdk-echo.mjs';

if (process.argv[2] === 'grpc') {
  const grpc = await import('@grpc/grpc-js');
  const { A2AService, grpcService, UserBuilder } = await import('@a2a-js/sdk/server/grpc');
  const server = new grpc.Server();
  // The SDK serves the versions its card's interfaces name: the GRPC one is added once bound.
  const card = echoCard([]);
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), echoExecutor);
  server.addService(A2AService, grpcService({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  const port = await new Promise((resolve, reject) => server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))));
  const target = `127.0.0.1:${port}`;
  card.supportedInterfaces.push(...echoCard([[target, 'GRPC']]).supportedInterfaces);
  console.log(`READY ${target}`);
} else {
  const { agentCardHandler, jsonRpcHandler, UserBuilder } = await import('@a2a-js/sdk/server/express');
  const { default: express } = await import('express');
  const app = express();
  const server = app.listen(0, '127.0.0.1', () => {
    const base = `http://127.0.0.1:${server.address().port}`;
    const handler = new DefaultRequestHandler(echoCard([[`${base}/jsonrpc`, 'JSONRPC']]), new InMemoryTaskStore(), echoExecutor);
    app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }));
    app.use('/jsonrpc', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
    console.log(`READY ${base}/jsonrpc`);
  });
}
