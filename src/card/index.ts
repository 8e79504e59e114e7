// The Agent Card: its schema and types, validation, the credential scan, and the
// human-readable `[A2A:card]` reply in both directions.

export { checkCard, assertCard, AGENT_ID, SKILL_ID, type CardCheck } from './validate.js';
export { findSecrets, type SecretFinding } from '../secrets.js';
export { render, type Lang } from './render.js';
export { parseCardReply, slug, type CardReply } from './parse-reply.js';
export {
  FRAMEWORKS,
  MODES,
  PROTOCOL_VERSION,
  type Framework,
  type Mode,
  type Skill,
  type Capabilities,
  type LiteCard,
  type CardError,
} from './types.js';
