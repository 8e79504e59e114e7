// Reading JSON from a peer field by field, each refusal naming the field's path. One reader
// serves every wire object: requests (INVALID_PARAMS), cards (INVALID_CARD) and the answers a
// client reads back; only the error it raises differs.

import { LiteError } from '../../errors.js';

export type Json = Record<string, unknown>;

/** The error for the field at `path`, which `problem` describes ("must be a string"). */
export type Refusal = (path: string, problem: string) => LiteError;

export interface FieldReader {
  /** `value` as a JSON object (not null, not an array). */
  object(value: unknown, path: string): Json;
  /** The string under the first of `names` that is set; undefined when none is (null counts as unset). */
  string(object: Json, path: string, ...names: string[]): string | undefined;
  /** Like `string`, but unset or empty is refused. */
  requiredString(object: Json, path: string, ...names: string[]): string;
  /** A whole number ≥ 0, or undefined when unset. */
  integer(object: Json, path: string, ...names: string[]): number | undefined;
  /** An array of strings, or [] when unset. */
  strings(object: Json, path: string, ...names: string[]): string[];
}

/**
 * A reader whose refusals are made by `refuse`.
 *
 * @example
 * const card = fieldReader((path, problem) => new LiteError('INVALID_CARD', `the agent card's ${path} ${problem}`));
 * card.requiredString({ name: '' }, 'name', 'name'); // throws: the agent card's name is required
 */
export function fieldReader(refuse: Refusal): FieldReader {
  const reader: FieldReader = {
    object(value, path) {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) throw refuse(path, 'must be an object');
      return value as Json;
    },
    string(object, path, ...names) {
      const value = field(object, ...names);
      if (value === undefined || value === null) return undefined;
      if (typeof value !== 'string') throw refuse(path, 'must be a string');
      return value;
    },
    requiredString(object, path, ...names) {
      const value = reader.string(object, path, ...names);
      if (value === undefined || value === '') throw refuse(path, 'is required');
      return value;
    },
    integer(object, path, ...names) {
      const value = field(object, ...names);
      if (value === undefined || value === null) return undefined;
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw refuse(path, 'must be a whole number ≥ 0');
      return value;
    },
    strings(object, path, ...names) {
      const value = field(object, ...names);
      if (value === undefined || value === null) return [];
      if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) throw refuse(path, 'must be an array of strings');
      return value as string[];
    },
  };
  return reader;
}

/** The value of a field under the first of its names that is set (its camelCase name, then its snake_case one). */
export function field(object: Json, ...names: string[]): unknown {
  for (const name of names) if (object[name] !== undefined) return object[name];
  return undefined;
}

/** A refusal of a request's parameters; `field` is the path of the field at fault, when one is. */
export function invalid(message: string, field?: string): LiteError {
  return new LiteError('INVALID_PARAMS', message, field === undefined ? undefined : { field });
}

/** A refusal of the field at `path` for `problem` ("is required"), naming the field. */
export function invalidField(path: string, problem: string): LiteError {
  return invalid(`${path} ${problem}`, path);
}

/**
 * The reader of request parameters and wire objects: refusals are INVALID_PARAMS naming the
 * field, which 1.0 peers also get as a google.rpc.BadRequest field violation (error-info.ts).
 */
export const requestFields: FieldReader = fieldReader(invalidField);

export const asObject = requestFields.object;
export const optionalString = requestFields.string;
export const optionalInteger = requestFields.integer;

/**
 * A value as an error message quotes it: strings and numbers as JSON (a string cut at 80
 * characters), anything else by its kind. Never walks into the value, however deep it nests.
 */
export function shown(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  if (value === undefined) return 'missing';
  return Array.isArray(value) ? 'an array' : `an ${typeof value}`;
}
