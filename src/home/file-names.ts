// Turns ids chosen by peers into safe, reversible file names: anything outside
// [A-Za-z0-9_-] (and a leading dot) is percent-encoded, so no id can climb out of its folder.

const RESERVED = /^(?:con|prn|aux|nul|com\d|lpt\d)$/i;

/** Encodes `id` as one path segment. Reversible with `decodeName`. */
export function encodeName(id: string): string {
  let out = '';
  for (const char of id) {
    out += /^[A-Za-z0-9_-]$/.test(char) || (char === '.' && out !== '') ? char : percent(char);
  }
  if (out === '') return '%';
  // Windows device names stay ordinary files elsewhere too: encode their first letter.
  return RESERVED.test(out.split('.')[0] ?? '') ? percent(out[0] as string) + out.slice(1) : out;
}

/** Decodes a name written by `encodeName`; undefined for a name it could not have written. */
export function decodeName(name: string): string | undefined {
  if (name === '%') return '';
  try {
    const id = decodeURIComponent(name);
    return encodeName(id) === name ? id : undefined;
  } catch {
    return undefined;
  }
}

function percent(char: string): string {
  return [...Buffer.from(char, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
}
