// How the plugin's tools are made: each declares its JSON Schema and a function from checked
// arguments to a value; the kit turns the value into the text the model reads (its lite text
// where it has one) and keeps the value in `details`, and turns a refusal into a clear error the
// model can act on, with the error's code, never a stack.

import type { Context } from '@opentelemetry/api';
import { LiteError, isLiteError } from '../errors.js';
import type { AgentTool, ToolResult } from './host.js';
import { inSpan, SpanKind } from '../telemetry/spans.js';

/** A JSON Schema property, as much of it as the tools use. */
export type Schema = Record<string, unknown>;

export const str = (description: string, extra: Schema = {}): Schema => ({ type: 'string', description, ...extra });
export const bool = (description: string): Schema => ({ type: 'boolean', description });
export const strings = (description: string): Schema => ({ type: 'array', items: { type: 'string' }, description });

/** What a tool's run returns: the text for the model, and the value itself. */
export interface Answer {
  text: string;
  details: Record<string, unknown>;
}

export interface ToolSpec {
  name: string;
  label: string;
  description: string;
  properties: Record<string, Schema>;
  required?: readonly string[];
  /** `trace`: the tool's span (its trace context) while tracing is on, the parent of the calls the tool makes. */
  run(args: Args, signal: AbortSignal | undefined, progress: (text: string, details?: Record<string, unknown>) => void, trace: Context | undefined): Answer | Promise<Answer>;
}

/** Checked arguments: read them with the typed getters. */
export class Args {
  constructor(
    private readonly tool: string,
    private readonly given: Record<string, unknown>,
  ) {}

  string(name: string): string | undefined {
    const value = this.given[name];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string') throw new LiteError('USAGE', `${this.tool}: ${name} is a string`);
    return value;
  }

  required(name: string): string {
    const value = this.string(name);
    if (value === undefined || value === '') throw new LiteError('USAGE', `${this.tool}: ${name} is required`);
    return value;
  }

  boolean(name: string): boolean | undefined {
    const value = this.given[name];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'boolean') throw new LiteError('USAGE', `${this.tool}: ${name} is true or false`);
    return value;
  }

  number(name: string): number | undefined {
    const value = this.given[name];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'number' || !Number.isFinite(value)) throw new LiteError('USAGE', `${this.tool}: ${name} is a number`);
    return value;
  }

  strings(name: string): string[] | undefined {
    const value = this.given[name];
    if (value === undefined || value === null) return undefined;
    if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) throw new LiteError('USAGE', `${this.tool}: ${name} is a list of strings`);
    return value as string[];
  }

  objects(name: string): Record<string, unknown>[] | undefined {
    const value = this.given[name];
    if (value === undefined || value === null) return undefined;
    if (!Array.isArray(value) || !value.every((v) => typeof v === 'object' && v !== null && !Array.isArray(v))) throw new LiteError('USAGE', `${this.tool}: ${name} is a list of objects`);
    return value as Record<string, unknown>[];
  }

  object(name: string): Record<string, unknown> | undefined {
    const value = this.given[name];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'object' || Array.isArray(value)) throw new LiteError('USAGE', `${this.tool}: ${name} is an object`);
    return value as Record<string, unknown>;
  }
}

/** The tool OpenClaw registers for `spec`. */
export function makeTool(spec: ToolSpec): AgentTool {
  const known = new Set(Object.keys(spec.properties));
  return {
    name: spec.name,
    label: spec.label,
    description: spec.description,
    parameters: { type: 'object', additionalProperties: false, properties: spec.properties, ...(spec.required ? { required: [...spec.required] } : {}) },
    async execute(toolCallId, params, signal, onUpdate) {
      try {
        const given = params !== null && typeof params === 'object' ? params : {};
        const unknown = Object.keys(given).filter((k) => !known.has(k));
        if (unknown.length > 0) throw new LiteError('USAGE', `${spec.name}: no argument ${unknown.map((k) => JSON.stringify(k)).join(', ')}; it takes ${[...known].join(', ') || 'none'}`);
        // An execute_tool span (the GenAI conventions); the A2A calls the tool makes are its children.
        const tool = { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': spec.name, 'gen_ai.tool.type': 'function', 'gen_ai.tool.call.id': String(toolCallId).slice(0, 256) };
        const answer = await inSpan(`execute_tool ${spec.name}`, SpanKind.INTERNAL, tool, async (span) => spec.run(new Args(spec.name, given), signal, (text, details = {}) => onUpdate?.({ content: [{ type: 'text', text }], details: { ok: true, partial: true, ...details } }), span.context));
        return { content: [{ type: 'text', text: answer.text }], details: { ok: true, ...answer.details } };
      } catch (error) {
        return failure(error);
      }
    },
  };
}

/** A refusal as the model sees it: the code and the message, the details kept for the host. */
export function failure(error: unknown): ToolResult {
  const code = isLiteError(error) ? error.code : 'INTERNAL';
  const message = error instanceof Error ? error.message : String(error);
  return { content: [{ type: 'text', text: `a2a-lite: ${code}: ${message}` }], details: { ok: false, error: { code, message } } };
}
