// `a2a-lite card sign`: an A2A Agent Card with one more JWS signature (A2A 1.0.1 §8.4), made
// with a key from a file: a card file as it is, or this agent's card in A2A 1.0 form.

import { resolve } from 'node:path';
import { toAgentCardV1 } from '../../a2a/wire/agent-card.js';
import { JWKS_PATH, signCard } from '../../a2a/wire/card-signature.js';
import { LiteError } from '../../errors.js';
import { writeFileAtomic } from '../../home/atomic-file.js';
import { readOwnCard } from '../../home/own-card.js';
import { atMost, parseOptions } from '../args.js';
import type { Context } from '../context.js';
import type { Subcommand } from '../group.js';
import { parseJson, readInput } from '../input.js';
import { note, printJson } from '../output.js';
import { readSigningKey } from '../key-files.js';
import { openStores } from '../stores.js';

export const signSubcommand: Subcommand = {
  run: sign,
  usage: 'a2a-lite card sign [CARD | -] --key FILE [--kid ID] [--jku URL] [--base-url URL] [--out FILE]',
  help: `Signs an A2A Agent Card (A2A 1.0.1 §8.4): a JWS over the card's RFC 8785 canonical form,
without its "signatures", added to "signatures" (earlier signatures are kept). CARD is an A2A
card file (- for stdin), signed as it is; without it, this agent's card is signed in A2A 1.0
form as served at --base-url (streaming on, push off). Prints the signed card, or writes it to
--out. A card served by \`a2a-lite serve --sign-key\` is signed as served, with no need for this.

options:
  --key FILE       the private key: PEM (PKCS#8 or SEC1) or a JWK, Ed25519 (EdDSA), P-256
                   (ES256), P-384 (ES384) or RSA of 2048 bits or more (RS256). Never a flag value.
  --kid ID         the key id in the signature (default: the key's RFC 7638 thumbprint)
  --jku URL        where verifiers find the public key as a JWK set (default for this agent's
                   card: <base-url>${JWKS_PATH}, where serve --sign-key publishes it)
  --base-url URL   the address this agent is served at (needed without CARD)
  --out FILE       write the signed card there instead of printing it

examples:
  a2a-lite card sign ./agent-card.a2a.json --key ./card-key.pem --jku https://agent.example/.well-known/jwks.json
  a2a-lite card sign --key ./card-key.pem --base-url https://agent.example --out signed.json`,
};

async function sign(args: string[], context: Context): Promise<number> {
  const { values, positionals } = parseOptions('card sign', args, {
    key: { type: 'string' },
    kid: { type: 'string' },
    jku: { type: 'string' },
    'base-url': { type: 'string' },
    out: { type: 'string' },
  });
  atMost('card sign', positionals, 1);
  if (values.key === undefined) throw new LiteError('USAGE', 'card sign: --key FILE is required (the private key file; a key is never given as a flag value)');
  const key = readSigningKey(context, values.key, '--key', values.kid);
  const baseUrl = values['base-url'] === undefined ? undefined : httpUrl(values['base-url'], '--base-url').replace(/\/+$/, '');
  let card: Record<string, unknown>;
  let jku = values.jku === undefined ? undefined : httpUrl(values.jku, '--jku');
  const source = positionals[0];
  if (source !== undefined) {
    const json = parseJson(await readInput(context, source, 'card sign'), source === '-' ? 'stdin' : source);
    if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new LiteError('INVALID_CARD', `${source === '-' ? 'stdin' : source} does not hold a JSON object, so it is no agent card`);
    card = json as Record<string, unknown>;
  } else {
    if (baseUrl === undefined) throw new LiteError('USAGE', "card sign: give a CARD file, or --base-url URL to sign this agent's own card as served there");
    card = toAgentCardV1(readOwnCard(openStores(values, context)), { baseUrl, streaming: true, pushNotifications: false });
    jku ??= `${baseUrl}${JWKS_PATH}`;
  }
  const signed = signCard(card, key, jku === undefined ? {} : { jku });
  if (values.out === undefined) {
    printJson(context, signed);
    return 0;
  }
  writeFileAtomic(resolve(context.cwd, values.out), `${JSON.stringify(signed, null, 2)}\n`);
  note(context, `wrote ${values.out}, signed with ${key.alg} key "${key.kid}"${jku === undefined ? '' : `; verifiers find the key at ${jku}`}`);
  return 0;
}

function httpUrl(value: string, option: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new LiteError('USAGE', `card sign: ${option} ${JSON.stringify(value)} is not a URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new LiteError('USAGE', `card sign: ${option} is an http:// or https:// URL`);
  if (url.username !== '' || url.password !== '') throw new LiteError('USAGE', `card sign: ${option} must not carry a user name or password`);
  return value;
}
