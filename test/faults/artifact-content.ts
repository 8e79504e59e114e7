// The bytes write-artifact.mjs writes for a task text, recomputed on the test's side, and the
// file they must come back as in a task's artifacts.
import { createHash } from 'node:crypto';
import type { Json } from './a2a-calls.js';

export const ARTIFACT_SIZE = 64 * 1024;
export const ARTIFACT_NAME = 'data.bin';

/** SHA-256 of "<text>:<block>", block after block, up to 64 KiB: what write-artifact.mjs writes. */
export function artifactContent(text: string): Buffer {
  const bytes = Buffer.alloc(ARTIFACT_SIZE);
  for (let block = 0; block * 32 < ARTIFACT_SIZE; block += 1) createHash('sha256').update(`${text}:${block}`).digest().copy(bytes, block * 32);
  return bytes;
}

export function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * What is wrong with a completed task's artifacts (A2A 1.0 JSON), or undefined when data.bin is
 * there, whole, with the bytes expected and the digest the program printed.
 */
export function artifactProblem(task: Json, expectedSha: string): string | undefined {
  const artifacts = (task.artifacts ?? []) as { parts?: Json[] }[];
  const parts = artifacts.flatMap((artifact) => artifact.parts ?? []);
  const files = parts.filter((part) => part.filename === ARTIFACT_NAME);
  if (files.length !== 1) return `${files.length} parts named ${ARTIFACT_NAME}`;
  const raw = files[0]?.raw;
  if (typeof raw !== 'string') return `${ARTIFACT_NAME} has no inline bytes`;
  const bytes = Buffer.from(raw, 'base64');
  if (bytes.length !== ARTIFACT_SIZE) return `${ARTIFACT_NAME} has ${bytes.length} bytes, not ${ARTIFACT_SIZE}`;
  if (sha256(bytes) !== expectedSha) return `${ARTIFACT_NAME} does not hold the bytes expected`;
  if (!parts.some((part) => part.text === `sha256 ${expectedSha}`)) return 'the result text does not name the digest of the bytes';
  return undefined;
}
