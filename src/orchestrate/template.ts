// Templates in a plan's text: `{{inputs.topic}}`, `{{steps.gather.text}}`,
// `{{steps.review.data.verdict}}`, `{{steps.draft.files}}`, `{{item}}`, `{{index}}`, `{{run.id}}`.
// Parsing is pure and done when the plan is checked, so a bad reference is refused before
// anything is sent; rendering happens when a step is about to go.

/** One `{{…}}` reference, read. */
export type Reference =
  | { kind: 'input'; name: string }
  | { kind: 'step'; step: string; field: StepField; path: string[] }
  | { kind: 'item'; path: string[] }
  | { kind: 'index' }
  | { kind: 'run'; field: 'id' | 'context' };

/** What a template may read of an earlier step. */
export const STEP_FIELDS = ['text', 'data', 'files', 'state', 'task', 'agent'] as const;
export type StepField = (typeof STEP_FIELDS)[number];

export type Piece = { kind: 'text'; text: string } | { kind: 'ref'; ref: Reference; source: string };

/** Why a template could not be read; the caller adds which step and field. */
export class TemplateError extends Error {}

const SEGMENT = /^[A-Za-z0-9_-]{1,64}$/;
/** The most references one template may hold. */
const MAX_REFS = 200;

/**
 * The pieces of `template`: plain text and references.
 *
 * @example
 * parseTemplate('Summarise {{steps.gather.text}}'); // [{kind:'text', text:'Summarise '}, {kind:'ref', …}]
 */
export function parseTemplate(template: string): Piece[] {
  const pieces: Piece[] = [];
  let at = 0;
  while (at < template.length) {
    const open = template.indexOf('{{', at);
    if (open === -1) {
      pieces.push({ kind: 'text', text: template.slice(at) });
      break;
    }
    if (open > at) pieces.push({ kind: 'text', text: template.slice(at, open) });
    const close = template.indexOf('}}', open + 2);
    if (close === -1) throw new TemplateError(`"{{" at character ${open + 1} is never closed with "}}"`);
    const source = template.slice(open + 2, close).trim();
    pieces.push({ kind: 'ref', ref: parseReference(source), source });
    if (pieces.length > MAX_REFS * 2) throw new TemplateError(`a template may hold at most ${MAX_REFS} references`);
    at = close + 2;
  }
  return pieces;
}

/** Every reference in `template`. */
export function referencesOf(template: string): Reference[] {
  return parseTemplate(template).flatMap((p) => (p.kind === 'ref' ? [p.ref] : []));
}

function parseReference(source: string): Reference {
  const parts = source.split('.');
  const bad = parts.find((p) => !SEGMENT.test(p));
  if (source === '' || bad !== undefined) throw new TemplateError(`{{${source}}} is not a reference; write {{inputs.NAME}}, {{steps.ID.text}}, {{item}} or {{index}}`);
  const [head, second, third, ...rest] = parts as [string, ...string[]];
  switch (head) {
    case 'inputs':
      if (second === undefined || third !== undefined) throw new TemplateError(`{{${source}}}: write {{inputs.NAME}}`);
      return { kind: 'input', name: second };
    case 'steps': {
      if (second === undefined || third === undefined) throw new TemplateError(`{{${source}}}: write {{steps.ID.FIELD}}, FIELD one of ${STEP_FIELDS.join(', ')}`);
      if (!(STEP_FIELDS as readonly string[]).includes(third)) throw new TemplateError(`{{${source}}}: a step has no field "${third}"; the fields are ${STEP_FIELDS.join(', ')}`);
      if (rest.length > 0 && third !== 'data') throw new TemplateError(`{{${source}}}: only data has fields below it`);
      return { kind: 'step', step: second, field: third as StepField, path: rest };
    }
    case 'item':
      return { kind: 'item', path: parts.slice(1) };
    case 'index':
      if (parts.length > 1) throw new TemplateError(`{{${source}}}: index has no fields`);
      return { kind: 'index' };
    case 'run':
      if ((second !== 'id' && second !== 'context') || third !== undefined) throw new TemplateError(`{{${source}}}: write {{run.id}} or {{run.context}}`);
      return { kind: 'run', field: second };
    default:
      throw new TemplateError(`{{${source}}} names "${head}"; a reference starts with inputs, steps, item, index or run`);
  }
}

/** What rendering reads: the value of each reference, or a TemplateError saying why there is none. */
export type Lookup = (ref: Reference, source: string) => unknown;

/**
 * The template with every reference replaced by its value: strings as they are, numbers and
 * booleans written out, lists of files by their names, anything else as JSON.
 */
export function renderTemplate(template: string, lookup: Lookup): string {
  return parseTemplate(template)
    .map((piece) => (piece.kind === 'text' ? piece.text : asText(lookup(piece.ref, piece.source))))
    .join('');
}

/** The value at a dotted `path` inside `value`; undefined when a part is missing. */
export function dig(value: unknown, path: readonly string[]): unknown {
  let here = value;
  for (const key of path) {
    if (Array.isArray(here) && /^\d+$/.test(key)) here = here[Number(key)];
    else if (typeof here === 'object' && here !== null && !Array.isArray(here) && Object.hasOwn(here, key)) here = (here as Record<string, unknown>)[key];
    else return undefined;
  }
  return here;
}

function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value === undefined || value === null) return '';
  return JSON.stringify(value);
}
