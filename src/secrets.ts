// Finds credentials before they are written anywhere: in cards (known token shapes, fields
// named like secrets, long high-entropy strings) and in messages (known token shapes only).
// Findings never repeat the value; `redactCredentials` replaces it.

/** Where a credential-like value sits (a JSON Pointer) and what it looks like. */
export interface SecretFinding {
  path: string;
  kind: string;
}

// Every quantifier that precedes a required character is bounded, so no shape can backtrack
// quadratically on hostile text (a message may be megabytes long).
const SHAPES: readonly (readonly [string, RegExp])[] = [
  ['private key', /-----BEGIN [A-Z ]{0,40}PRIVATE KEY-----/],
  ['API key (sk-…)', /\bsk-(?:proj-|ant-|live-|test-)?[A-Za-z0-9_-]{20,}/],
  ['GitHub token', /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})/],
  ['Slack token', /\bxox[abposr]-[A-Za-z0-9-]{10,}/],
  ['AWS access key', /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/],
  ['Google API key', /\bAIza[0-9A-Za-z_-]{35}/],
  ['Stripe key', /\b[rsp]k_(?:live|test)_[0-9A-Za-z]{16,}/],
  ['Hugging Face token', /\bhf_[A-Za-z0-9]{30,}/],
  ['npm token', /\bnpm_[A-Za-z0-9]{36}/],
  ['Telegram bot token', /\b\d{8,10}:[A-Za-z0-9_-]{35}\b/],
  ['JSON Web Token', /\beyJ[A-Za-z0-9_-]{8,300}\.[A-Za-z0-9_-]{8,20000}\.[A-Za-z0-9_-]{8,}/],
  ['bearer token', /\bBearer\s{1,8}[A-Za-z0-9._~+/-]{16,}/i],
  ['basic credentials', /\bBasic\s{1,8}(?=[A-Za-z0-9+/]{0,200}[0-9+/=])(?=[A-Za-z0-9+/]{0,200}[a-z])(?=[A-Za-z0-9+/]{0,200}[A-Z])[A-Za-z0-9+/]{8,}={0,2}/],
  ['password in a URL', /\b[a-z][a-z0-9+.-]{0,30}:\/\/[^\s/:@]{1,256}:[^\s/@]{1,256}@/i],
];

/** Field names that hold secrets, compared without case, `-`, `_` or a plural `s`, by their ending. */
const SECRET_NAME_ENDINGS = [
  'password', 'passwd', 'passphrase', 'pwd', 'pass', 'secret', 'token', 'apikey',
  'accesskey', 'privatekey', 'credential', 'authorization', 'auth', 'cookie', 'sessionid',
];
/** Counts and limits named after tokens are not secrets: maxTokens, tokenCount, … */
const NOT_SECRET_NAME = /^(?:max|min|num|total|count)|(?:count|limit|budget|usage|type|url|endpoint|env|header|name)s?$/;
/** A reference to a secret kept elsewhere is fine: `$NAME`, `${NAME}`, `env:NAME`. */
const REFERENCE = /^(?:\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|env:[A-Za-z_][A-Za-z0-9_]*)$/;
const CANDIDATE = /[A-Za-z0-9+=_-]{24,}/g;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const SLUG = /^[a-z]+(?:[-_][a-z0-9]+)+$/;

/** True for a field name such as `password`, `apiKey`, `client_secret` or `Authorization`. */
export function isSecretName(name: string): boolean {
  const key = name.replace(/[-_\s.]/g, '').toLowerCase();
  const singular = key.endsWith('s') ? key.slice(0, -1) : key;
  return SECRET_NAME_ENDINGS.some((ending) => key.endsWith(ending) || singular.endsWith(ending)) && !NOT_SECRET_NAME.test(key);
}

/** True for a value that may be a secret under a secret-named field (not a reference, not a count). */
export function looksLikeSecretValue(value: string): boolean {
  const trimmed = value.trim();
  return (
    trimmed.length >= 4 &&
    !REFERENCE.test(trimmed) &&
    !/^\d+$/.test(trimmed) &&
    !/^(?:true|false|none|null|required|optional)$/i.test(trimmed)
  );
}

/**
 * Returns every place in `value` that looks like a credential (empty when clean).
 *
 * @example
 * findSecrets({ agent: { id: 'x', apiKey: 'sk-…' } })  // [{ path: '/agent/apiKey', kind: 'API key (sk-…)' }]
 */
export function findSecrets(value: unknown, path = ''): SecretFinding[] {
  const findings: SecretFinding[] = [];
  // An explicit stack, not recursion: no nesting depth can hide a value or overflow the stack.
  const stack: { value: unknown; path: string }[] = [{ value, path }];
  while (stack.length > 0) {
    const item = stack.pop() as (typeof stack)[number];
    if (typeof item.value === 'string') {
      const kind = classify(item.value);
      if (kind !== undefined) findings.push({ path: item.path === '' ? '/' : item.path, kind });
    } else if (Array.isArray(item.value)) {
      for (let i = item.value.length - 1; i >= 0; i -= 1) stack.push({ value: item.value[i], path: `${item.path}/${i}` });
    } else if (item.value !== null && typeof item.value === 'object') {
      for (const [name, child] of Object.entries(item.value).reverse()) {
        const pointer = `${item.path}/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
        const values = typeof child === 'string' ? [child] : Array.isArray(child) ? child.filter((v) => typeof v === 'string') : [];
        if (isSecretName(name) && values.some(looksLikeSecretValue)) {
          findings.push({ path: pointer, kind: `value of a field named "${name}"` });
        } else {
          stack.push({ value: child, path: pointer });
        }
      }
    }
  }
  return findings;
}

/**
 * The kinds of known credential shapes in free text (empty when none). Used on messages,
 * where high-entropy words such as commit hashes are ordinary content.
 */
export function credentialShapes(text: string): string[] {
  return SHAPES.filter(([, shape]) => shape.test(text)).map(([kind]) => kind);
}

/** Replaces every known credential shape in `text` with `[redacted: kind]`. */
export function redactCredentials(text: string): string {
  let out = text;
  for (const [kind, shape] of SHAPES) out = out.replace(new RegExp(shape.source, `${shape.flags}g`), `[redacted: ${kind}]`);
  return out;
}

function classify(text: string): string | undefined {
  for (const [kind, shape] of SHAPES) if (shape.test(text)) return kind;
  for (const token of text.match(CANDIDATE) ?? []) {
    if (isHighEntropy(token)) return 'high-entropy string';
  }
  return undefined;
}

/** Long random-looking tokens: letters and digits mixed, little repetition. */
export function isHighEntropy(token: string): boolean {
  if (UUID.test(token) || SLUG.test(token)) return false;
  if (!/[0-9]/.test(token) || !/[A-Za-z]/.test(token)) return false;
  const hex = /^[0-9a-f]+$/i.test(token);
  if (hex) return token.length >= 32 && entropy(token) >= 3.2;
  return entropy(token) >= Math.min(4.0, Math.log2(token.length) - 0.75);
}

/** Shannon entropy in bits per character. */
export function entropy(text: string): number {
  const counts = new Map<string, number>();
  for (const c of text) counts.set(c, (counts.get(c) ?? 0) + 1);
  let bits = 0;
  for (const count of counts.values()) {
    const p = count / text.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}
