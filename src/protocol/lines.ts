// Recognises the special lines of A2A-Lite text: header lines, attachment lines and
// Markdown code fences. Every pattern here runs in linear time on any input.

/** Indentation chat clients leave before a header: spaces, tabs, full-width and zero-width spaces. */
const INDENT = '[ \\t\\u3000\\u200b\\ufeff]*';
/** A leading mention: `@name` (no `@` inside, so matching stays linear) or `<@123>` (Discord, Slack). */
const MENTION = '(?:@[^\\s@\\[［]+|<@[!&]?[A-Za-z0-9]+>)';

/** Groups: 1 indentation, 2 mentions; the opening bracket follows them. */
export const HEADER_LINE = new RegExp(`^(${INDENT})((?:${MENTION}${INDENT})*)[\\[［]${INDENT}a2a${INDENT}[:：]`, 'i');
export const MENTIONS_ONLY = new RegExp(`^\\s*(?:${MENTION}\\s*)+$`);
/** Group 1: the list of names between the colon and the closing bracket. */
export const ATTACHMENT_LINE = /^[ \t]*[[［][ \t]*(?:附件|attachments?)[ \t]*[:：](.*)[\]］][ \t]*$/is;
/** Group 1: the fence marker (three or more backticks or tildes). */
export const FENCE_LINE = /^[ \t]{0,3}(`{3,}|~{3,})(.*)$/s;

export function isHeaderLine(line: string): boolean {
  return line.startsWith('[A2A:') || HEADER_LINE.test(line);
}

/** Cheap pre-check on a line's first character before trying `HEADER_LINE`. */
export function mayStartHeader(code: number): boolean {
  return (
    code === 91 || code === 0xff3b || code === 64 || code === 60 || code === 32 || code === 9 || code === 0x3000 || code === 0x200b || code === 0xfeff
  );
}

/** Cheap pre-check before trying `ATTACHMENT_LINE`. */
export function mayBeAttachment(code: number): boolean {
  return code === 91 || code === 0xff3b || code === 32 || code === 9;
}

/** Cheap pre-check before trying `FENCE_LINE`. */
export function mayBeFence(code: number): boolean {
  return code === 96 || code === 126 || code === 32;
}

/** True when `line` closes a fence opened with `marker` (same character, at least as long). */
export function closesFence(line: string, marker: string): boolean {
  const trimmed = line.trim();
  if (trimmed.length < marker.length) return false;
  const char = marker[0];
  for (let i = 0; i < trimmed.length; i += 1) if (trimmed[i] !== char) return false;
  return true;
}

/**
 * True for a body line that, without its leading backslashes, would read as a header or an
 * attachment line. `format` escapes such lines with one more backslash; `parse` removes one.
 */
export function isSpecialLine(line: string): boolean {
  const bare = line.replace(/^\\+/, '');
  return isHeaderLine(bare) || ATTACHMENT_LINE.test(bare);
}

/** Blank for the purposes of the grammar: nothing but whitespace (including full-width). */
export function isBlank(line: string): boolean {
  return line.trim() === '';
}
