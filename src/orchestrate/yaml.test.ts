import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LiteError } from '../errors.js';
import { parseYaml } from './yaml.js';

describe('parseYaml', () => {
  it.each<[string, string, unknown]>([
    ['a mapping', 'a: 1\nb: text\n', { a: 1, b: 'text' }],
    ['scalars', 'n: ~\nt: true\nf: false\nx: -1.5e2\ns: "q \\"x\\" \\u00e9"\nq: \'it\'\'s\'\nu: 12ab', { n: null, t: true, f: false, x: -150, s: 'q "x" é', q: "it's", u: '12ab' }],
    ['a list of mappings', 'steps:\n  - id: a\n    text: hi\n  - id: b\n', { steps: [{ id: 'a', text: 'hi' }, { id: 'b' }] }],
    ['a list at the key\'s indent', 'needs:\n- a\n- b\nnext: 1', { needs: ['a', 'b'], next: 1 }],
    ['flow lists and mappings', 'each: [a, "b c", 3]\nwhen: { step: review, data: verdict, equals: "yes" }', { each: ['a', 'b c', 3], when: { step: 'review', data: 'verdict', equals: 'yes' } }],
    ['nested flow', 'x: [[1, 2], {a: [b]}]', { x: [[1, 2], { a: ['b'] }] }],
    ['comments', '# a plan\na: 1 # one\nb: "# not a comment"\n', { a: 1, b: '# not a comment' }],
    ['a literal block', 'text: |\n  line one\n    indented\n  line three\nnext: 2', { text: 'line one\n  indented\nline three\n', next: 2 }],
    ['a folded block, stripped', 'text: >-\n  one\n  two\n\n  three\n', { text: 'one two\nthree' }],
    ['templates and URLs as plain text', 'agent: http://127.0.0.1:7331/a\ntext: "{{steps.a.text}}"', { agent: 'http://127.0.0.1:7331/a', text: '{{steps.a.text}}' }],
    ['a document start', '---\na: 1', { a: 1 }],
    ['an empty key', 'a:\nb: 2', { a: null, b: 2 }],
    ['an empty document', '# nothing\n', null],
  ])('reads %s', (_what, text, value) => {
    expect(parseYaml(text)).toEqual(value);
  });

  it.each([
    ['tabs', 'a:\n\tb: 1', 'line 2: indent with spaces, not tabs'],
    ['an alias', 'a: &x 1\nb: *x', 'line 1: anchors, aliases and tags'],
    ['a tag', 'a: !!str 1', 'anchors, aliases and tags'],
    ['two documents', 'a: 1\n---\nb: 2', 'line 2: one document per plan file'],
    ['a repeated key', 'a: 1\na: 2', 'line 2: the key "a" is given twice'],
    ['an unclosed quote', 'a: "open', 'line 1: a quoted string is not closed'],
    ['an unclosed flow list', 'a: [1, 2', 'line 1: a flow list [a, b] is not closed on its line'],
    ['a stray indent', 'a: 1\n   b: 2', 'line 2: this line is indented more than the key above it'],
  ])('refuses %s, naming the line', (_what, text, message) => {
    expect(() => parseYaml(text)).toThrow(message);
  });

  it('never throws anything but INVALID_PLAN, whatever the text', () => {
    const pieces = fc.constantFrom('a: ', '- ', '  ', '\n', '[', ']', '{', '}', ',', ':', '"', "'", '#', '|', '>', '&', '*', '!', 'x', '1', '\t', '---', '\\u12', '\\');
    const text = fc.oneof(fc.string(), fc.array(pieces, { maxLength: 60 }).map((p) => p.join('')));
    fc.assert(
      fc.property(text, (source) => {
        try {
          parseYaml(source);
        } catch (error) {
          expect(error).toBeInstanceOf(LiteError);
          expect((error as LiteError).code).toBe('INVALID_PLAN');
          expect((error as LiteError).message).toMatch(/^plan: line \d+: /);
        }
      }),
      { numRuns: 1_500 },
    );
  });

  it('refuses nesting deeper than the limit rather than overflowing the stack', () => {
    expect(() => parseYaml(`a: ${'['.repeat(5_000)}`)).toThrow('nested deeper than 64 levels');
    const deep = Array.from({ length: 200 }, (_, i) => `${'  '.repeat(i)}k${i}:`).join('\n');
    expect(() => parseYaml(deep)).toThrow('nested deeper than 64 levels');
  });
});
