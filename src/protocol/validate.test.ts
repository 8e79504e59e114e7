import { describe, expect, it } from 'vitest';
import { parse } from './parse.js';
import { isValid, progressValue, validate } from './validate.js';

const problemsOf = (text: string) => validate(parse(text)).map((p) => `${p.level}:${p.code}${p.param ? `:${p.param}` : ''}`);

describe('validate', () => {
  it.each([
    '[A2A:discover]',
    '[A2A:card]\n我是佳佳',
    '[A2A:task id=research-001 skill=research priority=high]',
    '[A2A:status task=t-1 state=working progress=50% eta=10m]',
    '[A2A:status task=t-1 state=failed reason="缺少 权限"]',
    '[A2A:status task=t-1 state=auth-required]',
    '[A2A:result task=t-1 state=completed artifacts=1]\n[附件: a.md]',
    '[A2A:cancel task=t-1 reason=dup]',
    '[A2A:ack task=任务-001]',
    'plain words',
  ])('accepts %j', (text) => {
    expect(problemsOf(text)).toEqual([]);
  });

  it.each([
    ['[A2A:task]', ['error:MISSING_PARAM:id']],
    ['[A2A:task skill=research]', ['error:MISSING_PARAM:id']],
    ['[A2A:status task=t]', ['error:MISSING_PARAM:state']],
    ['[A2A:status state=working]', ['error:MISSING_PARAM:task']],
    ['[A2A:result]', ['error:MISSING_PARAM:task', 'error:MISSING_PARAM:state']],
    ['[A2A:cancel]', ['error:MISSING_PARAM:task']],
    ['[A2A:ack]', ['error:MISSING_PARAM:task']],
    ['[A2A:status task=t state=done]', ['error:INVALID_STATE:state']],
    ['[A2A:status task=t state=submitted]', ['error:INVALID_STATE:state']],
    ['[A2A:result task=t state=working]', ['error:RESULT_NOT_TERMINAL:state']],
    ['[A2A:status task=t state=working progress=150%]', ['error:INVALID_PROGRESS:progress']],
    ['[A2A:status task=t state=working progress=half]', ['error:INVALID_PROGRESS:progress']],
    ['[A2A:task id=""]', ['error:EMPTY_PARAM:id']],
    ['[A2A:task id=../../etc]', ['error:INVALID_TASK_ID:id']],
    ['[A2A:task id=x 9lives=1]', ['error:INVALID_PARAM_NAME:9lives']],
    ['[A2A:task id=x mood=happy]', ['notice:UNKNOWN_PARAM:mood']],
    ['[A2A:task id=x priority=asap]', ['notice:UNKNOWN_PRIORITY:priority']],
    ['[A2A:negotiate round=2]', ['notice:UNKNOWN_TYPE']],
    ['[A2A:result task=t state=completed artifacts=2]\n[附件: a.md]', ['notice:ARTIFACT_COUNT_MISMATCH:artifacts']],
    ['[A2A:]', ['error:INVALID_TYPE']],
    ['[A2A:plain id=x]', ['error:INVALID_TYPE']],
  ])('reports every problem of %j', (text, expected) => {
    expect(problemsOf(text)).toEqual(expected);
  });

  it('names the states allowed in the message', () => {
    const [problem] = validate(parse('[A2A:status task=t state=done]'));
    expect(problem?.message).toContain('accepted, working, input-required, completed, failed, cancelled, rejected');
  });

  it('treats notices as valid and errors as invalid', () => {
    expect(isValid(validate(parse('[A2A:task id=x mood=happy]')))).toBe(true);
    expect(isValid(validate(parse('[A2A:task]')))).toBe(false);
  });

  it.each([
    ['50%', 50],
    ['0', 0],
    ['100', 100],
    ['12.5%', 12.5],
    ['101', undefined],
    ['x', undefined],
    [undefined, undefined],
  ])('reads progress %j as %j', (raw, value) => {
    expect(progressValue(raw)).toBe(value);
  });
});

describe('validate: credentials', () => {
  const token = ['gh', 'p_', 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'].join('');

  it.each([
    [`[A2A:task id=t-1]\nmy token is ${token}`, 'the body'],
    [`[A2A:task id=t-1 auth=${token}]`, 'parameter "auth"'],
    [`[A2A:task id=t-1]\n[附件: ${token}.txt]`, 'an attachment name'],
    [`clone https://bot:hunter2@example.com/repo.git`, 'the body'],
  ])('flags a credential in %j without repeating it', (text, where) => {
    const problems = validate(parse(text)).filter((p) => p.code === 'CREDENTIAL_IN_MESSAGE');
    expect(problems).toHaveLength(1);
    expect(problems[0]?.message).toContain(where);
    expect(JSON.stringify(problems)).not.toContain(token);
  });

  it('leaves ordinary hashes and ids alone', () => {
    expect(validate(parse('[A2A:task id=review-001]\nplease review commit 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b'))).toEqual([]);
  });
});
