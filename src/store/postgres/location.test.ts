import { describe, expect, it } from 'vitest';
import { postgresLocation, schemaOf, scrub } from './location.js';

describe('postgresLocation', () => {
  it('reads the URL, its schema and its password, and shows it without the password', () => {
    const location = postgresLocation('postgres://agent:s3cr%40t@db.internal:6543/agents?schema=research&sslmode=require', {});
    expect(location).toEqual({
      connectionString: 'postgres://agent:s3cr%40t@db.internal:6543/agents?sslmode=require',
      schema: 'research',
      shown: 'postgres://agent@db.internal:6543/agents',
      secrets: ['s3cr@t'],
    });
  });

  it('takes the password from PGPASSWORD when the URL has none, and only then', () => {
    expect(postgresLocation('postgresql://agent@db/agents', { PGPASSWORD: 'from-env' })).toMatchObject({ password: 'from-env', secrets: ['from-env'] });
    expect(postgresLocation('postgres://agent:in-url@db/agents', { PGPASSWORD: 'from-env' })).not.toHaveProperty('password');
    expect(postgresLocation('postgres://agent@db/agents?password=in-query', { PGPASSWORD: 'from-env' })).toMatchObject({ secrets: ['in-query'], shown: 'postgres://agent@db/agents' });
    expect(postgresLocation('postgres://agent@db/agents', {})).not.toHaveProperty('password');
  });

  it('takes the password from a variable the operator names, and says so when it is not set', () => {
    expect(postgresLocation('postgres://agent@db/agents', { AGENTS_DB_PASSWORD: 'named', PGPASSWORD: 'standard' }, 'AGENTS_DB_PASSWORD')).toMatchObject({ password: 'named' });
    expect(() => postgresLocation('postgres://agent@db/agents', { PGPASSWORD: 'standard' }, 'AGENTS_DB_PASSWORD')).toThrow(
      expect.objectContaining({ code: 'USAGE', message: 'the password of the store postgres://agent@db/agents is to come from $AGENTS_DB_PASSWORD, which is not set' }),
    );
    expect(postgresLocation('postgres://agent:own@db/agents', {}, 'AGENTS_DB_PASSWORD')).not.toHaveProperty('password');
  });

  it.each([
    ['not a url at all', 'the store "not a url at all" is not a URL; give postgres://user@host:port/database'],
    ['postgres://agent:pa ss/word@@db:x/agents', 'the store "postgres://***@db:x/agents" is not a URL; give postgres://user@host:port/database'],
    ['mysql://agent:hunter2@db/agents', 'the store mysql://agent@db/agents is not a postgres:// URL'],
    ['postgres://agent:hunter2@db/agents?schema=Robert%27);DROP', 'the store postgres://agent@db/agents names schema "Robert\');DROP"; a schema name is lower-case letters, digits and _ (at most 63), not starting with a digit'],
  ])('refuses %j with USAGE, never showing the password', (url, message) => {
    expect(() => postgresLocation(url, {})).toThrow(expect.objectContaining({ code: 'USAGE', message }));
  });

  it('takes a schema option over the URL’s, and refuses a bad one', () => {
    const location = postgresLocation('postgres://db/agents?schema=from_url', {});
    expect(schemaOf(location, undefined, 'fallback')).toBe('from_url');
    expect(schemaOf(location, 'given', 'fallback')).toBe('given');
    expect(schemaOf(postgresLocation('postgres://db/agents', {}), undefined, 'fallback')).toBe('fallback');
    expect(() => schemaOf(location, '1abc', 'fallback')).toThrow(expect.objectContaining({ code: 'USAGE' }));
  });

  it('scrubs every secret out of a text', () => {
    expect(scrub('failed for p4ss at p4ss', ['p4ss', ''])).toBe('failed for *** at ***');
  });
});
