import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jiajiaCard } from '../../test/fixtures/cards.js';
import { LiteError } from '../errors.js';
import { assertCard, checkCard } from './validate.js';

const errorsOf = (card: unknown) => checkCard(card).errors.map((e) => `${e.path} ${e.rule}`);

describe('checkCard', () => {
  it('accepts the example card', () => {
    expect(checkCard(jiajiaCard())).toEqual({ valid: true, errors: [] });
  });

  it.each([
    [{}, ['/protocol required', '/agent required', '/skills required']],
    [{ ...jiajiaCard(), protocol: 'a2a/1' }, ['/protocol pattern']],
    [{ ...jiajiaCard(), agent: { id: 'x', name: 'X', framework: 'langchain' } }, ['/agent/framework enum']],
    [{ ...jiajiaCard(), agent: { id: 'x', framework: 'other' } }, ['/agent/name required']],
    [{ ...jiajiaCard(), skills: [{ id: 'a', name: 'A' }] }, ['/skills/0/description required']],
    [{ ...jiajiaCard(), skills: [{ id: 'a', name: 'A', description: '', inputModes: ['text', 'smell'] }] }, ['/skills/0/inputModes/1 enum']],
    [{ ...jiajiaCard(), limits: { maxConcurrentTasks: 1.5 } }, ['/limits/maxConcurrentTasks type']],
    [{ ...jiajiaCard(), capabilities: { streaming: 'yes' } }, ['/capabilities/streaming type']],
    [{ ...jiajiaCard(), agent: { id: '../etc/passwd', name: 'X', framework: 'other' } }, ['/agent/id agent-id']],
    [{ ...jiajiaCard(), skills: [{ id: 'a', name: 'A', description: '' }, { id: 'a', name: 'B', description: '' }] }, ['/skills/1/id unique']],
    [{ ...jiajiaCard(), limits: { maxConcurrentTasks: 0 } }, ['/limits/maxConcurrentTasks minimum']],
    [[], ['/ type']],
    [null, ['/ type']],
  ])('reports %j', (card, expected) => {
    expect(errorsOf(card)).toEqual(expected);
  });

  it('says which values an enum allows', () => {
    const [error] = checkCard({ ...jiajiaCard(), agent: { id: 'x', name: 'X', framework: 'langchain' } }).errors;
    expect(error?.message).toBe('must be one of: clawdbot, openclaw, other');
  });
});

describe('assertCard', () => {
  it('throws INVALID_CARD naming the path and the rule', () => {
    const attempt = () => assertCard({ ...jiajiaCard(), protocol: 'x' }, 'agent-card.json');
    expect(attempt).toThrow(LiteError);
    expect(attempt).toThrow('agent-card.json is invalid: /protocol must match');
  });

  it('throws CARD_HAS_CREDENTIAL without repeating the secret', () => {
    const secret = 'sk-proj-Abc123Def456Ghi789Jkl012Mno345';
    try {
      assertCard({ ...jiajiaCard(), description: `key ${secret}` });
      expect.unreachable();
    } catch (error) {
      expect((error as LiteError).code).toBe('CARD_HAS_CREDENTIAL');
      expect((error as LiteError).message).toContain('/description');
      expect(JSON.stringify(error)).not.toContain(secret);
      expect((error as LiteError).message).not.toContain(secret);
    }
  });
});

describe('checkCard on hostile input', () => {
  it('never throws and always explains a refusal', () => {
    const anyCard = fc.oneof(
      fc.jsonValue({ maxDepth: 6 }),
      fc.record({ protocol: fc.string(), agent: fc.jsonValue({ maxDepth: 3 }), skills: fc.array(fc.jsonValue({ maxDepth: 3 })) }),
      fc.record({ ...jiajiaCardShape(), __proto__: fc.jsonValue({ maxDepth: 2 }), constructor: fc.string() }, { requiredKeys: [] }),
    );
    fc.assert(
      fc.property(anyCard, (card) => {
        const { valid, errors } = checkCard(card);
        expect(valid).toBe(errors.length === 0);
        for (const error of errors) expect(error.path.startsWith('/')).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it('handles a card with thousands of skills', () => {
    const skills = Array.from({ length: 5000 }, (_, i) => ({ id: `s-${i}`, name: `S${i}`, description: '' }));
    expect(checkCard(jiajiaCard({ skills })).valid).toBe(true);
  });
});

function jiajiaCardShape() {
  const card = jiajiaCard();
  return { protocol: fc.constant(card.protocol), agent: fc.constant(card.agent), skills: fc.constant(card.skills) };
}
