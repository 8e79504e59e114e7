// Waiting on a raw socket in tests that write faster than the other side reads.
import type { Socket } from 'node:net';

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
