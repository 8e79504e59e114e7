import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LiteError } from '../../errors.js';
import { readExtendedCard, withExtendedCard } from './extended-card.js';

const publicCard = {
  name: 'Jiajia',
  description: 'Public words',
  skills: [{ id: 'research', name: 'Research', description: 'Looks things up', tags: ['research'], inputModes: ['text/plain'], outputModes: ['text/plain'] }],
  capabilities: { extendedAgentCard: true },
};

describe('readExtendedCard', () => {
  it('reads every field it may hold', () => {
    const value = {
      name: 'Jiajia (members)',
      description: 'More words',
      version: '2.0.0',
      provider: { organization: 'Acme', url: 'https://acme.example' },
      documentationUrl: 'https://acme.example/docs',
      iconUrl: 'https://acme.example/icon.png',
      defaultInputModes: ['text/plain', 'application/pdf'],
      defaultOutputModes: ['text/plain'],
      skills: [{ id: 'audit', name: 'Audit', description: 'Audits a ledger', tags: ['finance'], examples: ['audit Q3'], inputModes: ['application/pdf'], outputModes: ['text/plain'] }],
    };
    expect(readExtendedCard(value)).toEqual(value);
  });

  it.each([
    ['not an object', [], 'x.json: the card must be an object'],
    ['null', null, 'x.json: the card must be an object'],
    ['a field the server sets', { supportedInterfaces: [] }, 'x.json: supportedInterfaces is set by the server from what it serves; leave it out of the extended card'],
    ['the capabilities', { capabilities: { streaming: false } }, 'x.json: capabilities is set by the server'],
    ['a 0.3 field', { url: 'http://elsewhere.example' }, 'x.json: url is set by the server'],
    ['an unknown field', { rateLimit: 5 }, 'x.json: rateLimit is not a field of the extended card (it may hold name, description'],
    ['a name that is no string', { name: 5 }, 'x.json: name must be a string'],
    ['modes that are no strings', { defaultInputModes: [1] }, 'x.json: defaultInputModes must be an array of strings'],
    ['a provider without url', { provider: { organization: 'Acme' } }, 'x.json: provider.url is required'],
    ['a provider with more', { provider: { organization: 'Acme', url: 'u', phone: '1' } }, 'x.json: provider.phone is not a field of a provider'],
    ['skills that are no list', { skills: {} }, 'x.json: skills must be an array'],
    ['a skill without id', { skills: [{ name: 'A' }] }, 'x.json: skills[0].id is required'],
    ['a skill with a field 1.0 lacks', { skills: [{ id: 'a', price: 3 }] }, 'x.json: skills[0].price is not a field of a skill'],
    ['a skill with security requirements', { skills: [{ id: 'a', securityRequirements: [] }] }, 'x.json: skills[0].securityRequirements is not a field of a skill'],
    ['two skills of one id', { skills: [{ id: 'a' }, { id: 'a' }] }, 'x.json: skills[1].id repeats the skill id "a"'],
    ['tags that are no strings', { skills: [{ id: 'a', tags: 'x' }] }, 'x.json: skills[0].tags must be an array of strings'],
    ['too many skills', { skills: Array.from({ length: 1001 }, (_, i) => ({ id: `s${i}` })) }, 'x.json: skills holds more than 1000 skills'],
    ['a text too long', { description: 'x'.repeat(70_000) }, 'x.json: description is longer than 65536 characters'],
    ['nesting too deep', { skills: [{ id: 'a', tags: [[[[[[[['x']]]]]]]] }] }, 'x.json: the card nests deeper than 8 levels'],
  ])('refuses %s, naming the field', (_name, value, message) => {
    expect(() => readExtendedCard(value, 'x.json')).toThrow(expect.objectContaining({ code: 'INVALID_CARD', message: expect.stringContaining(message) }));
  });

  it('refuses a credential before anything else, without quoting it', () => {
    const token = 'ghp_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';
    let error: unknown;
    try {
      readExtendedCard({ description: `call with ${token}`, rateLimit: 5 }, 'x.json');
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({ code: 'CARD_HAS_CREDENTIAL', message: expect.stringContaining('/description looks like a credential') });
    expect((error as Error).message).not.toContain(token);
  });

  it('never throws anything but a LiteError, whatever it is given', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
        try {
          readExtendedCard(value);
        } catch (error) {
          expect(error).toBeInstanceOf(LiteError);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('withExtendedCard', () => {
  it('replaces the fields it has, adds new skills after the public ones and lays a known one over its own', () => {
    const merged = withExtendedCard(publicCard, {
      description: 'For members',
      skills: [
        { id: 'research', examples: ['research tides'] },
        { id: 'audit', name: 'Audit', description: 'Audits a ledger' },
      ],
    });
    expect(merged).toEqual({
      ...publicCard,
      description: 'For members',
      skills: [
        { ...publicCard.skills[0], examples: ['research tides'] },
        { id: 'audit', name: 'Audit', description: 'Audits a ledger', tags: ['audit'] },
      ],
    });
    // The public card is left as it was.
    expect(publicCard.skills[0]).not.toHaveProperty('examples');
  });

  it('refuses a new skill without a name or a description', () => {
    expect(() => withExtendedCard(publicCard, { skills: [{ id: 'audit', name: 'Audit' }] })).toThrow('the extended card\'s skill "audit" is not on the public card, so it needs a description');
  });
});
