// One entry of an Agent Card's `signatures`, read as a JWS with a detached payload (RFC 7515
// §7.2.2 flattened form): its base64url parts checked, its protected header decoded and held to
// what a card signature needs. Every way an entry can be malformed is a problem, never a throw.

/** The protected header of a card signature, as far as the verifier uses it. */
export interface SignatureHeader {
  alg: string;
  kid: string;
  typ?: string;
  jku?: string;
}

export type ReadEntry =
  | { header: SignatureHeader; protectedPart: string; signature: Buffer }
  | { problem: string; seen: { kid?: string; alg?: string } };

/** Longest parts read: far above any real header or signature (RSA 8192 is 1366 characters). */
const MAX_PROTECTED = 4096;
const MAX_SIGNATURE = 2048;
const MAX_HEADER = 4096;
const BASE64URL = /^[A-Za-z0-9_-]*$/;

/** `entry` read, or what is wrong with it (with the `kid` and `alg` it names, when it names them). */
export function readSignatureEntry(entry: unknown): ReadEntry {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return fail('it is not a JSON object');
  const { protected: protectedPart, signature, header } = entry as Record<string, unknown>;
  if (typeof protectedPart !== 'string' || protectedPart === '') return fail('its "protected" is missing or not a string');
  if (typeof signature !== 'string' || signature === '') return fail('its "signature" is missing or not a string');
  if (protectedPart.length > MAX_PROTECTED) return fail(`its "protected" is over ${MAX_PROTECTED} characters`);
  if (signature.length > MAX_SIGNATURE) return fail(`its "signature" is over ${MAX_SIGNATURE} characters`);
  if (!isBase64url(protectedPart)) return fail('its "protected" is not base64url (unpadded, with - and _)');
  let decoded: unknown;
  try {
    decoded = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(protectedPart, 'base64url')));
  } catch {
    return fail('its "protected" does not decode to JSON text');
  }
  if (typeof decoded !== 'object' || decoded === null || Array.isArray(decoded)) return fail('its protected header is not a JSON object');
  const found = decoded as Record<string, unknown>;
  const seen = { ...(typeof found.kid === 'string' ? { kid: found.kid } : {}), ...(typeof found.alg === 'string' ? { alg: found.alg } : {}) };
  const problem = headerProblem(found, header);
  if (problem !== undefined) return { problem, seen };
  if (!isBase64url(signature)) return { problem: 'its "signature" is not base64url (unpadded, with - and _)', seen };
  const typ = found.typ as string | undefined;
  const jku = found.jku as string | undefined;
  return {
    header: { alg: found.alg as string, kid: found.kid as string, ...(typ === undefined ? {} : { typ }), ...(jku === undefined ? {} : { jku }) },
    protectedPart,
    signature: Buffer.from(signature, 'base64url'),
  };
}

function headerProblem(found: Record<string, unknown>, unprotected: unknown): string | undefined {
  if (typeof found.alg !== 'string' || found.alg === '') return 'its protected header has no "alg"';
  if (found.alg === 'none') return 'its algorithm is "none": an unsigned card claiming a signature is refused';
  if (typeof found.kid !== 'string' || found.kid === '') return 'its protected header has no "kid" (A2A §8.4.2 requires one)';
  if (found.typ !== undefined && typeof found.typ !== 'string') return 'its "typ" is not a string';
  if (found.jku !== undefined && typeof found.jku !== 'string') return 'its "jku" is not a string';
  // RFC 7797: an unencoded payload changes what is signed; A2A signs the base64url-encoded one.
  if (found.b64 !== undefined && found.b64 !== true) return 'it asks for an unencoded payload ("b64": false), which card signatures do not use';
  // RFC 7515 §4.1.11: a critical parameter the reader does not understand makes the JWS invalid.
  if (found.crit !== undefined) return `it marks header parameters critical ("crit"), and none is understood here`;
  if (unprotected === undefined) return undefined;
  if (typeof unprotected !== 'object' || unprotected === null || Array.isArray(unprotected)) return 'its "header" is not a JSON object';
  let size: number;
  try {
    size = JSON.stringify(unprotected).length;
  } catch {
    return 'its "header" cannot be read';
  }
  if (size > MAX_HEADER) return `its "header" is over ${MAX_HEADER} characters`;
  // RFC 7515 §7.2.1: a parameter is either protected or not, never both.
  const both = Object.keys(unprotected).filter((name) => Object.hasOwn(found, name));
  if (both.length > 0) return `its "header" repeats protected parameters (${both.slice(0, 3).join(', ')})`;
  if ('crit' in unprotected) return 'its "header" holds "crit", which must be protected';
  return undefined;
}

function isBase64url(text: string): boolean {
  return BASE64URL.test(text) && text.length % 4 !== 1;
}

function fail(problem: string): ReadEntry {
  return { problem, seen: {} };
}
