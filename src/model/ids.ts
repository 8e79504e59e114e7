// Task, context, message and artifact ids: UUID version 7 (RFC 9562), a millisecond timestamp
// followed by 74 random bits. Ids made one after another sort one after another, so a store's
// id index grows at its end instead of touching a random page for every new task; that halves
// what a SQLite commit writes. The timestamp tells when the task was made, which its status
// already tells anyone who can read it; 74 random bits leave nothing to guess (see
// docs/security.md, "Task ids").

import { randomUUID } from 'node:crypto';

const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

/**
 * A new UUIDv7 string. The random bits come from `randomUUID`, which draws them from the
 * operating system's CSPRNG in batches; its first 48 bits make way for the timestamp.
 *
 * @example
 * uuidv7() // '019aa6a8-5c3e-7d1f-9a2b-4c6d8e0f1a2b'
 */
export function uuidv7(ms: number = Date.now()): string {
  const random = randomUUID(); // xxxxxxxx-xxxx-4xxx-Vxxx-xxxxxxxxxxxx, V in 8..b
  const high = Math.floor(ms / 0x1_0000_0000);
  const low = ms >>> 0;
  return (
    HEX[(high >>> 8) & 0xff]! +
    HEX[high & 0xff]! +
    HEX[low >>> 24]! +
    HEX[(low >>> 16) & 0xff]! +
    '-' +
    HEX[(low >>> 8) & 0xff]! +
    HEX[low & 0xff]! +
    '-7' +
    random.slice(15)
  );
}
