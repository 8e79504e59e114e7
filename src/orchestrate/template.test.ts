import { describe, expect, it } from 'vitest';
import { TemplateError, dig, parseTemplate, referencesOf, renderTemplate, type Reference } from './template.js';

describe('parseTemplate', () => {
  it.each<[string, Reference[]]>([
    ['plain words', []],
    ['{{inputs.topic}}', [{ kind: 'input', name: 'topic' }]],
    ['Sum up {{ steps.gather.text }} and {{steps.review.data.score.value}}', [
      { kind: 'step', step: 'gather', field: 'text', path: [] },
      { kind: 'step', step: 'review', field: 'data', path: ['score', 'value'] },
    ]],
    ['{{item}} #{{index}} {{item.name}}', [{ kind: 'item', path: [] }, { kind: 'index' }, { kind: 'item', path: ['name'] }]],
    ['{{run.id}}/{{run.context}}', [{ kind: 'run', field: 'id' }, { kind: 'run', field: 'context' }]],
  ])('reads the references of %j', (template, refs) => {
    expect(referencesOf(template)).toEqual(refs);
  });

  it.each([
    ['{{inputs.topic', 'is never closed'],
    ['{{}}', 'is not a reference'],
    ['{{steps.a}}', 'write {{steps.ID.FIELD}}'],
    ['{{steps.a.txt}}', 'a step has no field "txt"'],
    ['{{steps.a.text.more}}', 'only data has fields below it'],
    ['{{inputs.a.b}}', 'write {{inputs.NAME}}'],
    ['{{index.x}}', 'index has no fields'],
    ['{{run.pid}}', 'write {{run.id}} or {{run.context}}'],
    ['{{env.HOME}}', 'a reference starts with inputs, steps, item, index or run'],
    ['{{steps.a b.text}}', 'is not a reference'],
  ])('refuses %j, saying why', (template, why) => {
    expect(() => parseTemplate(template)).toThrow(TemplateError);
    expect(() => parseTemplate(template)).toThrow(why);
  });
});

describe('renderTemplate', () => {
  const values: Record<string, unknown> = { 'inputs.topic': 'agents', 'steps.a.data': { n: 3 }, 'steps.a.text': 'hello', item: ['x', 1], index: 2, 'steps.a.state': true };
  const lookup = (_ref: Reference, source: string) => values[source];

  it.each([
    ['About {{inputs.topic}}.', 'About agents.'],
    ['{{steps.a.text}}, {{steps.a.text}}', 'hello, hello'],
    ['data {{steps.a.data}}', 'data {"n":3}'],
    ['{{item}} at {{index}} {{steps.a.state}}', '["x",1] at 2 true'],
    ['[{{run.id}}]', '[]'],
  ])('renders %j as %j', (template, text) => {
    expect(renderTemplate(template, lookup)).toBe(text);
  });
});

describe('dig', () => {
  it.each<[unknown, string[], unknown]>([
    [{ a: { b: 1 } }, ['a', 'b'], 1],
    [{ a: [10, 20] }, ['a', '1'], 20],
    [{ a: 1 }, ['b'], undefined],
    [{ a: 1 }, ['a', 'b'], undefined],
    [{}, ['__proto__'], undefined],
    [null, ['a'], undefined],
  ])('finds in %j at %j: %j', (value, path, found) => {
    expect(dig(value, path)).toEqual(found);
  });
});
