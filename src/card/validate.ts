// Validates an Agent Card: the draft-07 schema (compiled ahead of time by ajv), then the
// rules a schema cannot say: safe ids, unique skills, and no credentials.

import { LiteError } from '../errors.js';
import { jsonDepth } from '../json-depth.js';
import { findSecrets } from '../secrets.js';
import type { CardError, LiteCard } from './types.js';
import { validate as schemaValidate } from './validate-card.generated.js';

interface AjvError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}

/** Agent ids name the file `known-agents/<id>.json`: letters or digits, then `. _ -`, at most 64. */
export const AGENT_ID = /^[\p{L}\p{N}][\p{L}\p{N}._-]{0,63}$/u;
/** Skill ids travel in `skill=` parameters and prefix task ids. */
export const SKILL_ID = /^[\p{L}\p{N}][\p{L}\p{N}_.:-]{0,63}$/u;

/** No card needs more nesting; deeper values are refused before anything recurses into them. */
const MAX_DEPTH = 32;

export interface CardCheck {
  valid: boolean;
  errors: CardError[];
}

/**
 * Checks `card` against the schema and the extra rules, reporting every error with its JSON
 * path and rule. Credentials are reported as rule `credential`, without their value.
 */
export function checkCard(card: unknown): CardCheck {
  const errors: CardError[] = [];
  if (jsonDepth(card, MAX_DEPTH) > MAX_DEPTH) {
    return { valid: false, errors: [{ path: '/', rule: 'depth', message: `nests deeper than ${MAX_DEPTH} levels` }] };
  }
  if (!schemaValidate(card)) {
    for (const error of (schemaValidate as unknown as { errors: AjvError[] }).errors) errors.push(fromAjv(error));
  }
  if (errors.length === 0) for (const error of semanticErrors(card as LiteCard)) errors.push(error);
  for (const finding of findSecrets(card)) {
    errors.push({
      path: finding.path,
      rule: 'credential',
      message: `looks like a credential (${finding.kind}); cards are public, keep secrets in environment variables`,
    });
  }
  return { valid: errors.length === 0, errors };
}

/**
 * Returns `card` typed as a LiteCard, or throws: `CARD_HAS_CREDENTIAL` when it carries a
 * secret (checked first, so a secret is never written even next to other mistakes), else
 * `INVALID_CARD`. The error's details hold every problem.
 */
export function assertCard(card: unknown, source = 'card'): LiteCard {
  const { valid, errors } = checkCard(card);
  if (valid) return card as LiteCard;
  const secrets = errors.filter((e) => e.rule === 'credential');
  if (secrets.length > 0) {
    throw new LiteError(
      'CARD_HAS_CREDENTIAL',
      `${source} refused: ${secrets.map((e) => `${e.path} ${e.message}`).join('; ')}`,
      { errors },
    );
  }
  const listed = errors.slice(0, 5).map((e) => `${e.path} ${e.message}`).join('; ');
  const more = errors.length > 5 ? ` (and ${errors.length - 5} more)` : '';
  throw new LiteError('INVALID_CARD', `${source} is invalid: ${listed}${more}`, { errors });
}

function fromAjv(error: AjvError): CardError {
  const path = error.instancePath === '' ? '/' : error.instancePath;
  const { keyword, params } = error;
  switch (keyword) {
    case 'required':
      return { path: joinPath(error.instancePath, String(params.missingProperty)), rule: 'required', message: 'is required' };
    case 'enum':
      return { path, rule: 'enum', message: `must be one of: ${(params.allowedValues as unknown[]).join(', ')}` };
    case 'pattern':
      return { path, rule: 'pattern', message: `must match ${String(params.pattern)} (for example "a2a-lite/1.0")` };
    case 'type':
      return { path, rule: 'type', message: `must be ${String(params.type) === 'integer' ? 'an integer' : `a ${String(params.type)}`}` };
    default:
      return { path, rule: keyword, message: error.message ?? 'is invalid' };
  }
}

function semanticErrors(card: LiteCard): CardError[] {
  const errors: CardError[] = [];
  if (!AGENT_ID.test(card.agent.id)) {
    errors.push({
      path: '/agent/id',
      rule: 'agent-id',
      message: 'must be 1–64 letters or digits, with ".", "_" or "-" after the first (it names the file known-agents/<id>.json)',
    });
  }
  if (card.agent.name.trim() === '') errors.push({ path: '/agent/name', rule: 'non-empty', message: 'must not be empty' });
  const seen = new Set<string>();
  card.skills.forEach((skill, index) => {
    if (!SKILL_ID.test(skill.id)) {
      errors.push({ path: `/skills/${index}/id`, rule: 'skill-id', message: 'must be 1–64 letters or digits, with "_", ".", ":" or "-" after the first' });
    } else if (seen.has(skill.id)) {
      errors.push({ path: `/skills/${index}/id`, rule: 'unique', message: `repeats skill id "${skill.id}"` });
    }
    seen.add(skill.id);
    if (skill.tags !== undefined && (!Array.isArray(skill.tags) || skill.tags.some((t) => typeof t !== 'string'))) {
      errors.push({ path: `/skills/${index}/tags`, rule: 'type', message: 'must be an array of strings' });
    }
  });
  const max = card.limits?.maxConcurrentTasks;
  if (max !== undefined && max < 1) errors.push({ path: '/limits/maxConcurrentTasks', rule: 'minimum', message: 'must be at least 1' });
  return errors;
}

function joinPath(base: string, name: string): string {
  return `${base}/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
}
