// The shapes of an A2A-Lite message and of what parsing and validation report about it.

/** The message types of A2A-Lite 1.0, plus `plain` for text without a header. */
export const KNOWN_TYPES = ['discover', 'card', 'task', 'status', 'result', 'cancel', 'ack'] as const;

export type KnownType = (typeof KNOWN_TYPES)[number];

/**
 * One protocol message: `[A2A:<type> k=v …]`, a natural-language body and attachment names.
 * `type` is lower case; an unknown type is kept as written (forward compatible).
 * `params` keeps the order of the header.
 */
export interface Message {
  type: KnownType | 'plain' | (string & {});
  params: Record<string, string>;
  body: string;
  attachments: string[];
}

/** A repair `parse` made to accept text that chat clients or models had bent out of shape. */
export interface ParseWarning {
  code: WarningCode;
  message: string;
}

export type WarningCode =
  | 'MENTION_STRIPPED'
  | 'CODE_FENCE_STRIPPED'
  | 'CRLF_NORMALIZED'
  | 'WHITESPACE_TRIMMED'
  | 'FULLWIDTH_NORMALIZED'
  | 'TAG_CASE_NORMALIZED'
  | 'TYPE_CASE_NORMALIZED'
  | 'SMART_QUOTES_NORMALIZED'
  | 'UNTERMINATED_QUOTE'
  | 'UNCLOSED_HEADER'
  | 'PARAM_WITHOUT_VALUE'
  | 'DUPLICATE_PARAM'
  | 'LEADING_TEXT'
  | 'MORE_MESSAGES';

/** The result of `parse`: the message and every repair that was needed to read it. */
export interface ParsedMessage extends Message {
  warnings: ParseWarning[];
}

/** A rule the message breaks (`error`) or something worth knowing that is allowed (`notice`). */
export interface Problem {
  code: ProblemCode;
  level: 'error' | 'notice';
  message: string;
  /** The parameter concerned, when there is one. */
  param?: string;
}

export type ProblemCode =
  | 'MISSING_PARAM'
  | 'EMPTY_PARAM'
  | 'INVALID_STATE'
  | 'RESULT_NOT_TERMINAL'
  | 'INVALID_PROGRESS'
  | 'INVALID_TASK_ID'
  | 'INVALID_TYPE'
  | 'INVALID_PARAM_NAME'
  | 'INVALID_PARAM_VALUE'
  | 'INVALID_ATTACHMENT'
  | 'UNKNOWN_TYPE'
  | 'UNKNOWN_PARAM'
  | 'UNKNOWN_PRIORITY'
  | 'ARTIFACT_COUNT_MISMATCH'
  | 'CREDENTIAL_IN_MESSAGE'
  | 'INVALID_TRACE_CONTEXT';
