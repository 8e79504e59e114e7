// The A2A-Lite Agent Card as TypeScript types (the JSON Schema is agent-card.schema.json).

export const FRAMEWORKS = ['clawdbot', 'openclaw', 'other'] as const;
export type Framework = (typeof FRAMEWORKS)[number];

export const MODES = ['text', 'file', 'image', 'audio', 'video'] as const;
export type Mode = (typeof MODES)[number];

export interface Skill {
  id: string;
  name: string;
  description: string;
  inputModes?: Mode[];
  outputModes?: Mode[];
  /** Not in the 1.0 schema (extra fields are allowed); used for routing and for A2A cards. */
  tags?: string[];
}

export interface Capabilities {
  streaming?: boolean;
  fileTransfer?: boolean;
  asyncTasks?: boolean;
  pushNotifications?: boolean;
}

export interface LiteCard {
  protocol: string;
  agent: { id: string; name: string; framework: Framework; version?: string };
  description?: string;
  skills: Skill[];
  capabilities?: Capabilities;
  limits?: { maxFileSize?: string; maxConcurrentTasks?: number };
  channels?: string[];
  contact?: { human?: string; timezone?: string };
  [extension: string]: unknown;
}

export const PROTOCOL_VERSION = 'a2a-lite/1.0';

/** One reason a card is invalid: where (a JSON Pointer), which rule, and what it means. */
export interface CardError {
  path: string;
  rule: string;
  message: string;
}
