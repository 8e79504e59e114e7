// Field number 0 names no field: bytes that carry one are refused by protobuf-es, so the direct
// reader gives way on them (undefined) and never reads them as a message. Found by the property
// test of proto-json.test.ts: a flipped byte inside a ListValue of a message's metadata.
import { fromBinary } from '@bufbuild/protobuf';
import { expect, it } from 'vitest';
import { binaryToJson } from './binary-to-json.js';
import { SendMessageRequestSchema } from './gen/a2a_pb.js';

it('gives way on a tag of field number 0 inside a Struct, as protobuf-es refuses it', () => {
  const bytes = Uint8Array.from([18, 47, 10, 1, 109, 32, 1, 42, 4, 10, 2, 104, 105, 50, 34, 10, 32, 10, 1, 107, 18, 27, 50, 25, 10, 9, 17, 0, 0, 0, 0, 0, 0, 240, 63, 0, 12, 42, 10, 10, 8, 10, 1, 120, 18, 3, 26, 1, 121]);
  expect(() => fromBinary(SendMessageRequestSchema, bytes)).toThrow();
  expect(binaryToJson(SendMessageRequestSchema, bytes)).toBeUndefined();
});
