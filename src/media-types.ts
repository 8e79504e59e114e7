// Media types: of a file by its name's extension, for files sent to or from agents; and of A2A
// 1.0's HTTP+JSON bodies, which the network layer's own error answers use too.

import { extname } from 'node:path';

/** The media type of 1.0 HTTP+JSON bodies (spec §11.1); requests may use `application/json` too. */
export const A2A_JSON = 'application/a2a+json';

const MEDIA_TYPES: Readonly<Record<string, string>> = {
  '.md': 'text/markdown',
  '.txt': 'text/plain',
  '.json': 'application/json',
  '.html': 'text/html',
  '.csv': 'text/csv',
  '.pdf': 'application/pdf',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.svg': 'image/svg+xml',
  '.mp3': 'audio/mpeg',
  '.wav': 'audio/wav',
  '.mp4': 'video/mp4',
  '.zip': 'application/zip',
};

/**
 * @example
 * mediaTypeOf('report.md') // 'text/markdown'
 * mediaTypeOf('data.bin')  // 'application/octet-stream'
 */
export function mediaTypeOf(name: string): string {
  return MEDIA_TYPES[extname(name).toLowerCase()] ?? 'application/octet-stream';
}
