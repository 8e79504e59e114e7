// Where a bench server loads a2a-lite from: this checkout's dist/, or another build's when
// A2A_LITE_DIST names it (`bench/hub.mjs --base DIR` compares two builds in one run that way).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const dist = process.env.A2A_LITE_DIST ?? fileURLToPath(new URL('../../dist/', import.meta.url));

/** The module at the first of `paths` that the build's dist/ holds (a module may have moved between builds). */
export const fromDist = (...paths) => {
  const found = paths.map((path) => join(dist, path)).find((file) => existsSync(file)) ?? join(dist, paths[0]);
  return import(pathToFileURL(found).href);
};
