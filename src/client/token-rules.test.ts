import { describe, expect, it } from 'vitest';
import { isLiteError } from '../errors.js';
import { TokenRules, originOf } from './token-rules.js';

const rules = new TokenRules(
  [
    { env: 'MEXICO_TOKEN', origin: 'https://agents.example.com' },
    { env: 'LOCAL_TOKEN', origin: 'http://[::1]:7331' },
  ],
  'the test config',
);

function refusal(run: () => void): string {
  try {
    run();
  } catch (error) {
    if (isLiteError(error, 'FORBIDDEN')) return error.message;
    throw error;
  }
  return 'passed';
}

describe('TokenRules', () => {
  it.each([
    ['MEXICO_TOKEN', 'https://agents.example.com/mexico/jsonrpc', 'passed'],
    ['MEXICO_TOKEN', 'https://AGENTS.example.com:443/a', 'passed'],
    ['LOCAL_TOKEN', 'http://[::1]:7331/jsonrpc', 'passed'],
    ['MEXICO_TOKEN', 'http://agents.example.com/', 'is for https://agents.example.com only, not for http://agents.example.com'],
    ['MEXICO_TOKEN', 'https://agents.example.com:8443/', 'not for https://agents.example.com:8443'],
    ['MEXICO_TOKEN', 'https://agents.example.com.evil.test/', 'not for https://agents.example.com.evil.test'],
    ['MEXICO_TOKEN', 'ftp://agents.example.com/', 'not for an agent with no address'],
    ['MEXICO_TOKEN', undefined, 'not for an agent with no address'],
    ['OPENAI_API_KEY', 'https://agents.example.com/', '"OPENAI_API_KEY" is not a token variable the operator allows; only those in the test config are used (MEXICO_TOKEN, LOCAL_TOKEN)'],
  ])('%s toward %s: %s', (name, url, expected) => {
    expect(refusal(() => rules.check(name, url, 'test'))).toContain(expected);
  });

  it('says when none is configured', () => {
    expect(refusal(() => new TokenRules([], 'the test config').checkName('HUB_TOKEN', 'test'))).toContain('(none is configured)');
  });

  it('reads an origin as URL writes it, and no origin from what is not http(s)', () => {
    expect(originOf('HTTPS://Hub.Example.com:443/x?y')).toBe('https://hub.example.com');
    expect(originOf('javascript:alert(1)')).toBeUndefined();
    expect(originOf('not a url')).toBeUndefined();
  });
});
