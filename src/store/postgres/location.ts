// Where a PostgreSQL store is: the postgres:// URL an operator gives, read once into what `pg`
// connects with, the schema the store's tables live in, and the URL as messages may show it
// (never with its password).

import { LiteError } from '../../errors.js';

/** The schema of the task store's tables when the URL names none. */
export const DEFAULT_TASK_SCHEMA = 'a2a_lite';
/** The schema of the hub's tables when the URL names none. */
export const DEFAULT_HUB_SCHEMA = 'a2a_lite_hub';

export interface PostgresLocation {
  /** What `pg` connects with: the URL without `schema`, and the password when it came from the environment. */
  connectionString: string;
  password?: string;
  /** The schema named by the URL's `?schema=`, if any. */
  schema?: string;
  /** The URL for messages: user, host, port and database, no password and no query. */
  shown: string;
  /** Strings that must never appear in a message (the password, however it came). */
  secrets: string[];
}

/** A schema name as PostgreSQL takes it unquoted: lower case, digits and `_`, at most 63 bytes. */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** The variable the password is read from when the URL has none: the one psql and libpq read. */
export const PASSWORD_VARIABLE = 'PGPASSWORD';

/**
 * Reads a postgres:// (or postgresql://) URL. The password is the URL's own, else the
 * environment variable `passwordVariable` of `env` (PGPASSWORD unless the operator names
 * another), so that an operator can keep it out of a command line that `ps` shows and out of
 * any flag that lands in a log; with neither, `pg` reads `~/.pgpass` (or `PGPASSFILE`) as
 * libpq does. `?schema=name` picks the schema of the store's tables, so that several agents can
 * share one database. Throws USAGE naming what is wrong, with the URL shown without its
 * password, and when a variable the operator named is not set.
 *
 * @example
 * // PGPASSWORD=… a2a-lite serve --store postgres://agent@db.internal:5432/agents?schema=research
 * const location = postgresLocation('postgres://agent@db.internal/agents?schema=research');
 */
export function postgresLocation(url: string, env: NodeJS.ProcessEnv = process.env, passwordVariable = PASSWORD_VARIABLE): PostgresLocation {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // No cause: the URL parser's error carries the input, password and all.
    throw new LiteError('USAGE', `the store ${redactUnparsed(url)} is not a URL; give postgres://user@host:port/database`);
  }
  const shown = showUrl(parsed);
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new LiteError('USAGE', `the store ${shown} is not a postgres:// URL`, { store: shown });
  }
  const schema = parsed.searchParams.get('schema') ?? undefined;
  if (schema !== undefined && !SCHEMA_NAME.test(schema)) {
    throw new LiteError('USAGE', `the store ${shown} names schema "${schema}"; a schema name is lower-case letters, digits and _ (at most 63), not starting with a digit`, { store: shown });
  }
  parsed.searchParams.delete('schema');
  const inUrl = decodeURIComponent(parsed.password) || parsed.searchParams.get('password') || '';
  const fromEnv = inUrl === '' ? env[passwordVariable] : undefined;
  if (inUrl === '' && fromEnv === undefined && passwordVariable !== PASSWORD_VARIABLE) {
    throw new LiteError('USAGE', `the password of the store ${shown} is to come from $${passwordVariable}, which is not set`, { store: shown });
  }
  const location: PostgresLocation = { connectionString: parsed.toString(), shown, secrets: [inUrl, fromEnv ?? ''].filter((s) => s !== '') };
  if (schema !== undefined) location.schema = schema;
  if (fromEnv !== undefined && fromEnv !== '') location.password = fromEnv;
  return location;
}

/** The URL with only what names the place: scheme, user, host, port, database. */
function showUrl(url: URL): string {
  const user = url.username === '' ? '' : `${url.username}@`;
  return `${url.protocol}//${user}${url.host}${url.pathname}`;
}

/** A string that is not even a URL, shown with whatever stands between `//` and the last `@` hidden. */
export function redactUnparsed(text: string): string {
  const start = text.indexOf('//');
  const at = text.lastIndexOf('@');
  const shown = start !== -1 && at > start ? `${text.slice(0, start + 2)}***${text.slice(at)}` : text;
  return JSON.stringify(shown.length > 200 ? `${shown.slice(0, 200)}…` : shown);
}

/** `text` with every secret replaced by `***`. */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret !== '') out = out.split(secret).join('***');
  return out;
}

/** The schema a store uses: the option, else the URL's, else the default; USAGE for a bad name. */
export function schemaOf(location: PostgresLocation, option: string | undefined, fallback: string): string {
  const schema = option ?? location.schema ?? fallback;
  if (!SCHEMA_NAME.test(schema)) throw new LiteError('USAGE', `"${schema}" is not a schema name: lower-case letters, digits and _ (at most 63), not starting with a digit`);
  return schema;
}
