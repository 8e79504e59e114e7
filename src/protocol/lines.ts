// Recognises the special lines of A2A-Lite text: header lines (after any indentation and
// @mentions), attachment lines and Markdown code fences. Header lines are found by a scanner,
// not a regular expression: mentions and indentation could otherwise be split in exponentially
// many ways on hostile input. Every check here is linear in the line's length.

/** Where a header line's parts start: indentation ends at `mentions`, mentions end at `bracket`. */
export interface HeaderStart {
  mentions: number;
  bracket: number;
}

/** Group 1: the list of names between the colon and the closing bracket. */
export const ATTACHMENT_LINE = /^[ \t]*[[［][ \t]*(?:附件|attachments?)[ \t]*[:：](.*)[\]］][ \t]*$/is;
/** Group 1: the fence marker (three or more backticks or tildes). */
export const FENCE_LINE = /^[ \t]{0,3}(`{3,}|~{3,})(.*)$/s;
const ANGLE_MENTION = /<@[!&]?[A-Za-z0-9]+>/y;

/** Indentation chat clients leave: spaces, tabs, full-width, zero-width and BOM characters. */
function isIndent(code: number): boolean {
  return code === 32 || code === 9 || code === 0x3000 || code === 0x200b || code === 0xfeff;
}

/** Characters that end an `@name` mention: whitespace, indentation, `@`, `<` and brackets. */
function endsMention(code: number): boolean {
  return isIndent(code) || code === 64 || code === 60 || code === 91 || code === 0xff3b || code === 10 || code === 13 || code === 11 || code === 12 || code === 0xa0;
}

function skipIndent(text: string, from: number): number {
  let i = from;
  while (i < text.length && isIndent(text.charCodeAt(i))) i += 1;
  return i;
}

/** Reads one mention at `from` and returns where it ends, or -1 when none starts there. */
function readMention(text: string, from: number): number {
  const code = text.charCodeAt(from);
  if (code === 64) {
    let i = from + 1;
    while (i < text.length && !endsMention(text.charCodeAt(i))) i += 1;
    return i > from + 1 ? i : -1;
  }
  if (code === 60) {
    ANGLE_MENTION.lastIndex = from;
    return ANGLE_MENTION.test(text) ? ANGLE_MENTION.lastIndex : -1;
  }
  return -1;
}

/**
 * Finds `[A2A:` (or `［a2a：`, with spaces) at the start of `line`, after indentation and
 * mentions. Returns where the parts start, or undefined when the line is no header.
 */
export function headerStart(line: string): HeaderStart | undefined {
  if (line.startsWith('[A2A:')) return { mentions: 0, bracket: 0 };
  const mentions = skipIndent(line, 0);
  let i = mentions;
  for (;;) {
    const end = readMention(line, i);
    if (end === -1) break;
    i = skipIndent(line, end);
  }
  const bracket = i;
  const open = line.charCodeAt(i);
  if (open !== 91 && open !== 0xff3b) return undefined;
  i = skipIndent(line, i + 1);
  if (line.slice(i, i + 3).toLowerCase() !== 'a2a') return undefined;
  i = skipIndent(line, i + 3);
  const colon = line.charCodeAt(i);
  return colon === 58 || colon === 0xff1a ? { mentions, bracket } : undefined;
}

export function isHeaderLine(line: string): boolean {
  return headerStart(line) !== undefined;
}

/** True for text made only of mentions and whitespace (a line like "@Mexico" before a header). */
export function isMentionsOnly(text: string): boolean {
  let i = 0;
  let found = false;
  for (;;) {
    while (i < text.length && (isIndent(text.charCodeAt(i)) || /\s/.test(text[i] as string))) i += 1;
    if (i === text.length) return found;
    const end = readMention(text, i);
    if (end === -1) return false;
    found = true;
    i = end;
  }
}

/** Cheap pre-check on a line's first character before `headerStart`. */
export function mayStartHeader(code: number): boolean {
  return code === 91 || code === 0xff3b || code === 64 || code === 60 || isIndent(code);
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
  let bare = 0;
  while (line.charCodeAt(bare) === 92) bare += 1;
  const rest = bare === 0 ? line : line.slice(bare);
  return isHeaderLine(rest) || ATTACHMENT_LINE.test(rest);
}

/**
 * Line ends as LF: every run of CR before an LF goes. A character loop, not `/\r+\n/`, which
 * would backtrack quadratically over a long run of CR without an LF.
 */
export function normalizeLineEnds(text: string): string {
  if (!text.includes('\r\n')) return text;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length - 1; i += 1) {
    const line = lines[i] as string;
    let end = line.length;
    while (end > 0 && line.charCodeAt(end - 1) === 13) end -= 1;
    if (end < line.length) lines[i] = line.slice(0, end);
  }
  return lines.join('\n');
}

/** Blank for the purposes of the grammar: nothing but whitespace (including full-width). */
export function isBlank(line: string): boolean {
  return line.trim() === '';
}
