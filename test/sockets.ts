// Sockets in tests: a port nothing listens on, and waiting on a socket written faster than read.
import { createServer, type AddressInfo, type Socket } from 'node:net';

/** Resolves once `socket` has drained (it takes writes again) or closed. */
export function drainedOrClosed(socket: Socket): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      socket.off('drain', done);
      socket.off('close', done);
      resolve();
    };
    socket.on('drain', done);
    socket.on('close', done);
  });
}

/** A port nothing listens on now: for a server that must come back at the same address, or a dead one. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
