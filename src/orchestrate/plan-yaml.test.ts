import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { LiteError } from '../errors.js';
import { parsePlan } from './plan-file.js';
import { MAX_DEPTH, parsePlanYaml, type YamlWork } from './plan-yaml.js';

/** The refusal `text` meets, as its message. */
async function refusal(text: string, work?: YamlWork): Promise<string> {
  try {
    await parsePlanYaml(text, work);
  } catch (error) {
    expect(error).toBeInstanceOf(LiteError);
    expect((error as LiteError).code).toBe('INVALID_PLAN');
    return (error as LiteError).message;
  }
  throw new Error(`read without a refusal: ${JSON.stringify(text.slice(0, 80))}`);
}

/** `depth` flow lists inside one another under the key `a` (the root mapping is one level). */
const flowNest = (depth: number): string => `a: ${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}`;
/** `depth` block mappings inside one another, one key per line. */
const blockNest = (depth: number): string => Array.from({ length: depth }, (_, i) => `${'  '.repeat(i)}k${i}:`).join('\n') + ' end';

describe('parsePlanYaml', () => {
  it.each<[string, string, unknown]>([
    ['a mapping', 'a: 1\nb: text\n', { a: 1, b: 'text' }],
    ['scalars', 'n: ~\nt: true\nf: false\nx: -1.5e2\ns: "q \\"x\\" \\u00e9"\nq: \'it\'\'s\'\nu: 12ab', { n: null, t: true, f: false, x: -150, s: 'q "x" é', q: "it's", u: '12ab' }],
    ['YAML 1.2 core numbers: 0x1F and 0o17 are ints', 'hex: 0x1F\noct: 0o17\nexp: 1e3\ninf: .inf', { hex: 31, oct: 15, exp: 1000, inf: Infinity }],
    ['yes, no, on, off and dates as text (YAML 1.2)', 'a: yes\nb: no\nc: on\nd: off\ne: 2001-12-14\nf: 1_000', { a: 'yes', b: 'no', c: 'on', d: 'off', e: '2001-12-14', f: '1_000' }],
    ['a list of mappings', 'steps:\n  - id: a\n    text: hi\n  - id: b\n', { steps: [{ id: 'a', text: 'hi' }, { id: 'b' }] }],
    ["a list at the key's indent", 'needs:\n- a\n- b\nnext: 1', { needs: ['a', 'b'], next: 1 }],
    ['flow lists and mappings', 'each: [a, "b c", 3]\nwhen: { step: review, data: verdict, equals: "yes" }', { each: ['a', 'b c', 3], when: { step: 'review', data: 'verdict', equals: 'yes' } }],
    ['a flow list over several lines', 'each: [\n  fr,\n  de,   # German\n  zh\n]\nnext: 1', { each: ['fr', 'de', 'zh'], next: 1 }],
    ['a flow mapping over several lines', 'when: {step: review,\n  data: verdict,\n  equals: ok}', { when: { step: 'review', data: 'verdict', equals: 'ok' } }],
    ['nested flow', 'x: [[1, 2], {a: [b]}]', { x: [[1, 2], { a: ['b'] }] }],
    ['comments', '# a plan\na: 1 # one\nb: "# not a comment"\n', { a: 1, b: '# not a comment' }],
    ['a literal block', 'text: |\n  line one\n    indented\n  line three\nnext: 2', { text: 'line one\n  indented\nline three\n', next: 2 }],
    ['a folded block', 'text: >\n  one\n  two\n\n  three\nnext: 2', { text: 'one two\nthree\n', next: 2 }],
    ['a folded block, stripped', 'text: >-\n  one\n  two\n\n  three\n', { text: 'one two\nthree' }],
    ['a literal block, kept', 'text: |+\n  one\n\nnext: 2', { text: 'one\n\n', next: 2 }],
    ['a quoted string over lines', 'text: "one\n  two"', { text: 'one two' }],
    ['templates and URLs as plain text', 'agent: http://127.0.0.1:7331/a\ntext: "{{steps.a.text}}"', { agent: 'http://127.0.0.1:7331/a', text: '{{steps.a.text}}' }],
    ['a document start', '---\na: 1', { a: 1 }],
    ['a document end', 'a: 1\n...\n', { a: 1 }],
    ['a document end, then comments', '---\na: 1\n...\n# the end\n', { a: 1 }],
    ['an empty key', 'a:\nb: 2', { a: null, b: 2 }],
    ['an empty document', '# nothing\n', null],
    [`${MAX_DEPTH} levels of flow lists`, flowNest(MAX_DEPTH), { a: JSON.parse(`${'['.repeat(MAX_DEPTH - 1)}${']'.repeat(MAX_DEPTH - 1)}`) as unknown }],
  ])('reads %s', async (_what, text, value) => {
    expect(await parsePlanYaml(text)).toEqual(value);
  });

  it(`reads ${MAX_DEPTH} levels of block mappings`, async () => {
    let value = (await parsePlanYaml(blockNest(MAX_DEPTH))) as Record<string, unknown>;
    for (let i = 0; i < MAX_DEPTH - 1; i += 1) value = value[`k${i}`] as Record<string, unknown>;
    expect(value).toEqual({ [`k${MAX_DEPTH - 1}`]: 'end' });
  });

  it.each([
    ['an anchor', 'a: 1\nb: &x 1\nc: *x', 'line 2, column 4: an anchor (&x) is not read in plan files; write the value out in full'],
    ['an alias', 'a: [1,\n  *x]', 'line 2, column 3: an alias (*x) is not read in plan files'],
    ['a tag', 'steps:\n  - text: !!str 1', 'line 2, column 11: a tag (!!str) is not read in plan files; quote the value if it is text'],
    ['a local tag', 'a: !secret x', 'line 1, column 4: a tag (!secret)'],
    ['a directive', '%YAML 1.1\n---\na: yes', 'line 1, column 1: a directive (%YAML 1.1) is not read in plan files'],
    ['a second document', 'a: 1\n---\nb: 2', 'line 2, column 1: a second document; a plan file holds one'],
    ['a second, empty document', 'a: 1\n---\n', 'line 2, column 1: a second document'],
    ['a document after the end', 'a: 1\n...\nb: 2', 'line 3, column 1: a second document'],
    ['a repeated key', 'a: 1\nb: 2\na: 3', 'line 3, column 1: the key "a" is given twice in this mapping'],
    ['a repeated key, once quoted', 'steps:\n  - id: a\n    "id": b', 'line 3, column 5: the key "id" is given twice'],
    ['a repeated key in a flow mapping', 'w: {x: 1, y: 2, x: 3}', 'line 1, column 17: the key "x" is given twice'],
    ['a number and text that are the same key', '1: a\n"1": b', 'line 2, column 1: the key "1" is given twice'],
    ['a list as a key', '? [a, b]\n: 1', 'line 1, column 3: a key must be text, not a list or a mapping'],
    ['a key over 1024 characters', `? ${'k'.repeat(1025)}\n: 1`, 'line 1, column 3: a key longer than 1024 characters'],
    [`${MAX_DEPTH + 1} levels of flow lists`, flowNest(MAX_DEPTH + 1), `line 1, column ${3 + MAX_DEPTH}: nested deeper than ${MAX_DEPTH} levels`],
    [`${MAX_DEPTH + 1} levels of block mappings`, blockNest(MAX_DEPTH + 1), `line ${MAX_DEPTH + 1}, column ${2 * MAX_DEPTH + 1}: nested deeper than ${MAX_DEPTH} levels`],
    ['tabs', 'a:\n\tb: 1', 'line 2, column 1: Tabs are not allowed as indentation'],
    ['an unclosed quote', 'a: "open', 'line 1, column 9: Missing closing "quote'],
    ['an unclosed flow list', 'a: [1, 2', 'line 1, column 9: Flow sequence in block collection must be sufficiently indented and end with a ]'],
  ])('refuses %s, naming the line and column', async (_what, text, message) => {
    expect(await refusal(text)).toContain(`plan: ${message}`);
  });

  it('never throws anything but INVALID_PLAN naming a line and column, whatever the text', async () => {
    const pieces = fc.constantFrom('a: ', '- ', '  ', '\n', '[', ']', '{', '}', ',', ':', '"', "'", '#', '|', '>', '&x', '*x', '!', '%', '? ', 'x', '1', '\t', '---', '...', '\\u12', '\\');
    const text = fc.oneof(fc.string(), fc.array(pieces, { maxLength: 60 }).map((p) => p.join('')));
    await fc.assert(
      fc.asyncProperty(text, async (source) => {
        try {
          await parsePlanYaml(source);
        } catch (error) {
          expect(error).toBeInstanceOf(LiteError);
          expect((error as LiteError).code).toBe('INVALID_PLAN');
          expect((error as LiteError).message).toMatch(/^plan: line \d+, column \d+: \S/);
        }
      }),
      { numRuns: 1_500 },
    );
  });
});

describe('plans written by the yaml package', () => {
  const id = fc.stringMatching(/^[a-z][a-z0-9_-]{0,8}$/);
  const words = fc.oneof(fc.string({ maxLength: 300 }), fc.string({ unit: 'grapheme', maxLength: 40 }), fc.constantFrom('0x1F', 'yes', 'off', '~', 'null', '1e3', '- a', 'a: b', '#x', '"q"', '{{steps.a.text}}', '  lead', 'trail  ', 'two\nlines\n', ''));
  // JSON values without -0, which JSON itself cannot tell from 0.
  const value = fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown);
  const plan = fc.record(
    {
      name: words,
      description: words,
      inputs: fc.dictionary(id, fc.oneof(fc.constant(null), words, fc.record({ default: words, description: words }, { requiredKeys: [] }))),
      steps: fc.uniqueArray(
        fc.record(
          {
            id,
            agent: fc.constantFrom('http://127.0.0.1:7331', 'https://agents.example/a'),
            text: words,
            each: fc.array(value, { minLength: 1, maxLength: 4 }),
            retries: fc.integer({ min: 0, max: 10 }),
            timeout: fc.double({ min: 0.001, max: 86_400, noNaN: true }),
          },
          { requiredKeys: ['id', 'agent', 'text'] },
        ),
        { minLength: 1, maxLength: 5, selector: (step) => step.id },
      ),
      output: fc.record({ text: words }),
    },
    { requiredKeys: ['steps'] },
  );

  it('parse back equal to what was written, and to the same plan written as JSON', async () => {
    await fc.assert(
      fc.asyncProperty(plan, fc.constantFrom(80, 20), async (doc, lineWidth) => {
        const text = stringify(doc, { aliasDuplicateObjects: false, lineWidth });
        expect(await parsePlanYaml(text)).toEqual(doc);
        // A plan whose words happen to look like a credential or a template error is refused
        // the same way from both.
        const [yaml, json] = await Promise.all([settle(parsePlan(text, 'plan.yaml')), settle(parsePlan(JSON.stringify(doc), 'plan.json'))]);
        expect(yaml).toEqual(json);
      }),
      { numRuns: 300 },
    );
  });
});

async function settle<T>(promise: Promise<T>): Promise<T | string> {
  return promise.catch((error: Error) => error.message);
}

describe('hostile YAML', () => {
  it('refuses a billion laughs at its first anchor, having read a few tokens', async () => {
    const laughs = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let level = 1; level < 9; level += 1) {
      const [name, prev] = ['abcdefghi'[level] as string, 'abcdefghi'[level - 1] as string];
      laughs.push(`${name}: &${name} [${Array.from({ length: 9 }, () => `*${prev}`).join(',')}]`);
    }
    const work = { lexemes: 0, nodes: 0 };
    expect(await refusal(laughs.join('\n'), work)).toBe('plan: line 1, column 4: an anchor (&a) is not read in plan files; write the value out in full');
    expect(work.lexemes).toBeLessThan(10);
    expect(work.nodes).toBe(0);
  });

  it.each([
    ['a million flow lists', `a: ${'['.repeat(1_000_000)}`, `line 1, column ${3 + MAX_DEPTH}: nested deeper`],
    ['a quarter million flow mappings', '{a: '.repeat(250_000), `line 1, column ${1 + 4 * MAX_DEPTH}: nested deeper`],
    ['half a million block lists on one line', `${'- '.repeat(500_000)}x`, `line 1, column ${1 + 2 * MAX_DEPTH}: nested deeper`],
    ['half a million explicit keys', '? '.repeat(500_000), `line 1, column ${1 + 2 * MAX_DEPTH}: nested deeper`],
  ])('refuses %s where the limit is passed, without reading on', async (_what, text, message) => {
    const work = { lexemes: 0, nodes: 0 };
    expect(await refusal(text, work)).toContain(`plan: ${message} than ${MAX_DEPTH} levels`);
    // A few tokens a level, however long the text: reading stops at the limit.
    expect(work.lexemes).toBeLessThan(6 * MAX_DEPTH);
  });

  it('refuses huge keys with a clear message', async () => {
    const work = { lexemes: 0, nodes: 0 };
    expect(await refusal(`${'k'.repeat(500_000)}: 1`, work)).toBe('plan: line 1, column 1: The : indicator must be at most 1024 chars after the start of an implicit block mapping key');
    expect(await refusal(`? ${'k'.repeat(500_000)}\n: 1`, work)).toBe('plan: line 1, column 3: a key longer than 1024 characters');
    expect(await refusal(`{"${'k'.repeat(500_000)}": 1}`, work)).toBe('plan: line 1, column 2: a key longer than 1024 characters');
    expect(work.lexemes).toBeLessThan(40);
  });

  it('checks repeated keys once per key, however many keys a mapping has', async () => {
    const keys = Array.from({ length: 20_000 }, (_, i) => `k${i}: ${i}`);
    const work = { lexemes: 0, nodes: 0 };
    expect(await refusal(`${keys.join('\n')}\nk7: again`, work)).toBe('plan: line 20001, column 1: the key "k7" is given twice in this mapping');
    expect(work.nodes).toBe(1 + 20_000);
  });

  it('refuses a plan over 1 MiB before reading it', async () => {
    await expect(parsePlan(`a: "${'x'.repeat(1024 * 1024)}"`, 'plan.yaml')).rejects.toMatchObject({ code: 'INPUT_TOO_LARGE', message: 'plan: plan.yaml is over 1048576 bytes' });
  });
});
