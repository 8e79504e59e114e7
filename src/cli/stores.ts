// Opens the stores of the home a command works in, telling the user on stderr when the agent's
// files were moved out of the skill's folder.

import { openHomeStores, type Stores } from '../home/stores.js';
import type { Context } from './context.js';
import { note } from './output.js';

export type { Stores } from '../home/stores.js';

export function openStores(values: { home?: string | undefined }, context: Context): Stores {
  return openHomeStores({ flag: values.home, env: context.env, cwd: context.cwd }, (text) => note(context, text));
}
