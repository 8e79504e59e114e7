import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LiteError } from '../errors.js';
import { checkPlan, inOrder, resolveInputs } from './plan-check.js';
import { parsePlan } from './plan-file.js';
import { parsePlanDocument } from './plan-parse.js';

const URL_A = 'http://127.0.0.1:7331';
const step = (fields: Record<string, unknown>) => ({ id: 'a', agent: URL_A, text: 'hi', ...fields });
const plan = (...steps: Array<Record<string, unknown>>) => ({ steps });
const check = (document: unknown) => checkPlan(parsePlanDocument(document));

/** The error a document gets, as `code path: message`. */
function refusal(document: unknown): string {
  try {
    check(document);
  } catch (error) {
    if (error instanceof LiteError) return `${error.code} ${String((error.details as { path?: string }).path)}: ${error.message}`;
    throw error;
  }
  return 'accepted';
}

describe('reading a plan', () => {
  it('reads every field, and adds to needs what a step reads', () => {
    const read = check({
      name: 'research',
      inputs: { topic: 'agents', depth: { default: '2', description: 'how deep' }, style: null },
      steps: [
        { id: 'gather', skill: 'research', text: 'About {{inputs.topic}}', retries: 2, backoff: 0.5, timeout: 60, tokenEnv: 'RESEARCH_TOKEN' },
        { id: 'review', agent: URL_A, text: 'Review {{steps.gather.text}}', fallback: { skill: 'review' } },
        { id: 'each', agent: URL_A, each: ['x', 'y'], text: '{{item}} {{index}}', when: [{ step: 'review', data: 'verdict', equals: 'ok' }], needs: ['gather'] },
      ],
      output: { text: '{{steps.review.text}}', files: ['gather'] },
    });
    expect(check({ hub: { url: 'http://127.0.0.1:7400', tokenEnv: 'HUB_TOKEN' }, steps: [step({})] }).hub).toEqual({ url: 'http://127.0.0.1:7400', tokenEnv: 'HUB_TOKEN' });
    expect(read.inputs).toEqual({ topic: { default: 'agents' }, depth: { default: '2', description: 'how deep' }, style: {} });
    expect(read.steps[0]).toMatchObject({ target: { skill: 'research' }, retries: 2, backoffMs: 500, timeoutMs: 60_000, tokenEnv: 'RESEARCH_TOKEN', needs: [] });
    expect(read.steps[1]).toMatchObject({ needs: ['gather'], fallback: { skill: 'review' } });
    expect(read.steps[2]).toMatchObject({ needs: ['gather', 'review'], each: { kind: 'list', items: ['x', 'y'] } });
    expect(inOrder([...read.steps].reverse()).map((s) => s.id)).toEqual(['gather', 'review', 'each']);
  });

  it.each<[string, unknown, string]>([
    ['not a mapping', ['a'], 'INVALID_PLAN plan: plan: plan: must be a mapping (key: value), not a list'],
    ['no steps', {}, 'INVALID_PLAN steps: plan: steps: a plan needs a list of steps'],
    ['an unknown top field', { steps: [step({})], stpes: 1 }, 'INVALID_PLAN plan.stpes: plan: plan.stpes: unknown field; the fields here are name, description, hub, inputs, steps, output'],
    ['a misspelt step field', plan(step({ neds: ['b'] })), 'INVALID_PLAN steps.a.neds: plan: steps.a.neds: unknown field'],
    ['a step without an id', plan({ agent: URL_A, text: 'x' }), 'INVALID_PLAN steps[0].id: plan: steps[0].id: every step needs an id'],
    ['a bad id', plan(step({ id: '1st' })), 'INVALID_PLAN steps[0].id: plan: steps[0].id: "1st" is not a step id'],
    ['two steps with one id', plan(step({}), step({})), 'INVALID_PLAN steps.a.id: plan: steps.a.id: two steps are named "a"'],
    ['no target', plan({ id: 'a', text: 'x' }), 'INVALID_PLAN steps.a.agent: plan: steps.a.agent: name the agent (a URL or a known id) or a skill'],
    ['two targets', plan(step({ skill: 's' })), 'INVALID_PLAN steps.a.agent: plan: steps.a.agent: give agent or skill, not both'],
    ['a file URL', plan(step({ agent: 'file:///etc/passwd' })), 'INVALID_PLAN steps.a.agent: plan: steps.a.agent: "file:///etc/passwd" is not an http or https URL'],
    ['nothing to send', plan({ id: 'a', agent: URL_A }), 'INVALID_PLAN steps.a.text: plan: steps.a.text: a step needs text to send'],
    ['an unknown need', plan(step({ needs: ['b'] })), 'INVALID_PLAN steps.a.needs[0]: plan: steps.a.needs[0]: no step is named "b"'],
    ['a step needing itself', plan(step({ needs: 'a' })), 'INVALID_PLAN steps.a.needs[0]: plan: steps.a.needs[0]: a step cannot need itself'],
    ['a cycle', plan(step({ needs: ['c'] }), step({ id: 'b', needs: ['a'] }), step({ id: 'c', needs: ['b'] })), 'INVALID_PLAN steps.a.needs: plan: steps.a.needs: the steps wait for each other in a cycle: a → c → b → a'],
    ['a cycle through a template', plan(step({ text: '{{steps.b.text}}' }), step({ id: 'b', text: '{{steps.a.text}}' })), 'the steps wait for each other in a cycle: a → b → a'],
    ['an undeclared input', plan(step({ text: '{{inputs.topic}}' })), 'INVALID_PLAN steps.a.text: plan: steps.a.text: {{inputs.topic}} names an input the plan does not declare'],
    ['a missing step in a template', plan(step({ text: '{{steps.b.text}}' })), 'INVALID_PLAN steps.a.text: plan: steps.a.text: {{steps.b.text}} names no step of the plan'],
    ['a field no step has', plan(step({}), step({ id: 'b', text: '{{steps.a.result}}' })), 'INVALID_PLAN steps.b.text: plan: steps.b.text: {{steps.a.result}}: a step has no field "result"'],
    ['an unclosed template', plan(step({ text: 'hi {{inputs.x' })), 'INVALID_PLAN steps.a.text: plan: steps.a.text: "{{" at character 4 is never closed'],
    ['item outside each', plan(step({ text: '{{item}}' })), 'INVALID_PLAN steps.a.text: plan: steps.a.text: {{item}} is only known in a step with each'],
    ['an agent chosen by an answer', plan(step({}), step({ id: 'b', agent: '{{steps.a.text}}' })), 'INVALID_PLAN steps.b.agent: plan: steps.b.agent: an agent may not be chosen by what another agent answered'],
    ['a bad condition state', plan(step({}), step({ id: 'b', when: { step: 'a', state: 'done' } })), 'INVALID_PLAN steps.b.when.state: plan: steps.b.when.state: "done" is not how a step ends'],
    ['a condition on a missing step', plan(step({ when: { step: 'z' } })), 'INVALID_PLAN steps.a.when.step: plan: steps.a.when.step: no step is named "z"'],
    ['equals without data', plan(step({}), step({ id: 'b', when: { step: 'a', equals: 1 } })), 'INVALID_PLAN steps.b.when.equals: plan: steps.b.when.equals: equals compares a data field: give data too'],
    ['a bad regular expression', plan(step({}), step({ id: 'b', when: { step: 'a', matches: '(' } })), 'INVALID_PLAN steps.b.when.matches: plan: steps.b.when.matches: is not a regular expression'],
    ['an empty each', plan(step({ each: [] })), 'INVALID_PLAN steps.a.each: plan: steps.a.each: an empty list leaves nothing to do'],
    ['each over an undeclared input', plan(step({ each: { input: 'list' } })), 'INVALID_PLAN steps.a.each.input: plan: steps.a.each.input: the plan declares no input "list"'],
    ['too many retries', plan(step({ retries: 11 })), 'INVALID_PLAN steps.a.retries: plan: steps.a.retries: must be a whole number from 0 to 10'],
    ['a negative timeout', plan(step({ timeout: -1 })), 'INVALID_PLAN steps.a.timeout: plan: steps.a.timeout: must be a number of seconds from 0 to 86400'],
    ['a token instead of its name', plan(step({ tokenEnv: 'sk-abc def' })), 'INVALID_PLAN steps.a.tokenEnv: plan: steps.a.tokenEnv: must be the name of an environment variable'],
    ['a fallback with neither', plan(step({ fallback: {} })), 'INVALID_PLAN steps.a.fallback: plan: steps.a.fallback: give the fallback an agent or a skill'],
    ['a token in a step\'s words', plan(step({ text: 'use ghp_abcdefghijklmnopqrstuvwxyz0123456789' })), 'INVALID_PLAN steps.a.text: plan: steps.a.text: holds what looks like a credential (GitHub token)'],
    ['a hub that is not a URL', { ...plan(step({})), hub: 'hub.local' }, 'INVALID_PLAN hub: plan: hub: must be the http or https URL of an a2a-lite hub'],
    ['a hub token instead of its name', { ...plan(step({})), hub: { url: 'http://127.0.0.1:7400', tokenEnv: 'abc def' } }, 'INVALID_PLAN hub.tokenEnv: plan: hub.tokenEnv: must be the name of an environment variable'],
    ['output files of a missing step', { ...plan(step({})), output: { files: ['b'] } }, 'INVALID_PLAN output.files[0]: plan: output.files[0]: no step is named "b"'],
  ])('refuses %s, naming the field', (_what, document, expected) => {
    expect(refusal(document)).toContain(expected);
  });

  it('gives inputs their defaults and refuses unknown or missing ones', () => {
    const read = check({ inputs: { topic: null, depth: '2' }, steps: [step({ text: '{{inputs.topic}} {{inputs.depth}}' })] });
    expect(resolveInputs(read, { topic: 'x' })).toEqual({ topic: 'x', depth: '2' });
    expect(() => resolveInputs(read, {})).toThrow('the plan needs the input "topic"; give it with --input topic=VALUE');
    expect(() => resolveInputs(read, { topic: 'x', color: 'red' })).toThrow('the plan has no input "color"; its inputs are topic, depth');
    expect(() => resolveInputs(read, { topic: 'ghp_abcdefghijklmnopqrstuvwxyz0123456789' })).toThrow('the input "topic" looks like a credential (GitHub token)');
    const keyed = check({ inputs: ['apiKey'], steps: [step({ text: '{{inputs.apiKey}}' })] });
    expect(() => resolveInputs(keyed, { apiKey: 'hunter2-secret' })).toThrow('the input "apiKey" looks like a credential; a plan takes tokens from the environment');
  });

  it('reads the same plan from YAML and from JSON', async () => {
    const yaml = `name: two\nsteps:\n  - id: a\n    agent: ${URL_A}\n    text: hi\n  - id: b\n    skill: review\n    text: "{{steps.a.text}}"\n`;
    const json = JSON.stringify({ name: 'two', steps: [{ id: 'a', agent: URL_A, text: 'hi' }, { id: 'b', skill: 'review', text: '{{steps.a.text}}' }] });
    expect(await parsePlan(yaml, 'plan.yaml')).toEqual(await parsePlan(json, 'plan.json'));
    await expect(parsePlan('{"steps": [', 'plan.json')).rejects.toThrow(/INVALID_JSON|not valid JSON/);
  });

  it('never throws anything but INVALID_PLAN naming a path for any document, however hostile', () => {
    const stepLike = fc.record(
      {
        id: fc.oneof(fc.constantFrom('a', 'b', 'c'), fc.string()),
        agent: fc.oneof(fc.constant(URL_A), fc.string(), fc.anything()),
        skill: fc.string(),
        text: fc.oneof(fc.constantFrom('{{steps.a.text}}', '{{steps.b.data.x}}', '{{inputs.t}}', '{{item}}', '{{'), fc.string(), fc.anything()),
        needs: fc.oneof(fc.array(fc.constantFrom('a', 'b', 'c', 'z')), fc.anything()),
        when: fc.anything(),
        each: fc.oneof(fc.array(fc.anything()), fc.anything()),
        retries: fc.anything(),
        fallback: fc.anything(),
        timeout: fc.anything(),
      },
      { requiredKeys: [] },
    );
    const document = fc.oneof(fc.anything(), fc.record({ inputs: fc.anything(), steps: fc.array(stepLike, { maxLength: 5 }), output: fc.anything() }, { requiredKeys: ['steps'] }));
    fc.assert(
      fc.property(document, (doc) => {
        try {
          check(doc);
        } catch (error) {
          expect(error).toBeInstanceOf(LiteError);
          expect((error as LiteError).code).toBe('INVALID_PLAN');
          expect(typeof ((error as LiteError).details as { path?: unknown }).path).toBe('string');
          expect((error as LiteError).message).toMatch(/^plan: \S/);
        }
      }),
      { numRuns: 600 },
    );
  });
});
