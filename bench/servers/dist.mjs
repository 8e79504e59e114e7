// Where a bench server loads a2a-lite from: this checkout's dist/, or another build's when
// A2A_LITE_DIST names it (`bench/hub.mjs --base DIR` compares two builds in one run that way).
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const dist = process.env.A2A_LITE_DIST ?? fileURLToPath(new URL('../../dist/', import.meta.url));

/** The module at `path` inside the build's dist/. */
export const fromDist = (path) => import(pathToFileURL(join(dist, path)).href);
