// Which token variables may be sent, and where. The CLI sends the variable its operator names on
// the command line; the OpenClaw plugin acts for a model that may be steered by what it reads, so
// there the operator lists each variable the plugin may use and the one origin its token is for.

import { LiteError } from '../errors.js';

/** One variable the operator allows, and the origin (`scheme://host[:port]`) its token goes to. */
export interface TokenBinding {
  env: string;
  /** As `new URL(…).origin` writes it: lower-case host, no default port. */
  origin: string;
}

/** The name of an environment variable (never a token). */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The operator's list. A name not on it is never read from the environment; a name on it is
 * sent only to a URL whose origin it is bound to.
 *
 * @example
 * const rules = new TokenRules([{ env: 'MEXICO_TOKEN', origin: 'https://agents.example.com' }], 'the a2a-lite plugin config (tokens)');
 * rules.check('MEXICO_TOKEN', 'https://agents.example.com/mexico/jsonrpc', 'a2a_lite_send'); // passes
 * rules.check('OPENAI_API_KEY', 'https://agents.example.com/', 'a2a_lite_send');             // FORBIDDEN
 */
export class TokenRules {
  constructor(
    readonly bindings: readonly TokenBinding[],
    /** Where the operator keeps the list, for error messages. */
    private readonly where: string,
  ) {}

  /** The names the operator allows, each once, in the order given. */
  names(): string[] {
    return [...new Set(this.bindings.map((b) => b.env))];
  }

  /** Refuses a name that is not on the list, before anything is sent or stored. */
  checkName(name: string, who: string): void {
    if (this.bindings.some((b) => b.env === name)) return;
    const allowed = this.names();
    throw new LiteError(
      'FORBIDDEN',
      `${who}: ${JSON.stringify(name.slice(0, 64))} is not a token variable the operator allows; only those in ${this.where} are used${allowed.length > 0 ? ` (${allowed.join(', ')})` : ' (none is configured)'}`,
      { tokenEnv: name.slice(0, 64) },
    );
  }

  /** Refuses to send the token in `name` to `url` unless the operator bound it to that URL's origin. */
  check(name: string, url: string | undefined, who: string): void {
    this.checkName(name, who);
    const origin = url === undefined ? undefined : originOf(url);
    if (origin !== undefined && this.bindings.some((b) => b.env === name && b.origin === origin)) return;
    const bound = this.bindings.filter((b) => b.env === name).map((b) => b.origin);
    throw new LiteError(
      'FORBIDDEN',
      `${who}: the token in ${name} is for ${bound.join(', ')} only, not for ${origin ?? 'an agent with no address'}; nothing was sent (bind it to that origin in ${this.where} if it is meant for it)`,
      { tokenEnv: name, origin: origin ?? '' },
    );
  }
}

/** The origin of `url` (`https://host:port`), or undefined when it is no http(s) URL. */
export function originOf(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.origin : undefined;
  } catch {
    return undefined;
  }
}
