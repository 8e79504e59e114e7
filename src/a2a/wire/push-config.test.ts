import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LiteError } from '../../errors.js';
import {
  pushConfigFromV03,
  pushConfigFromV1,
  pushConfigToV03,
  pushConfigToV1,
  taskPushConfigFromV03,
  webhookUrl,
} from './push-config.js';
import type { PushConfig } from '../../model/push-config.js';

const invalidParams = (message: RegExp) => expect.objectContaining({ code: 'INVALID_PARAMS', message: expect.stringMatching(message) });

describe('webhookUrl', () => {
  it.each([
    ['https://client.example/hooks/a2a', 'https://client.example/hooks/a2a'],
    ['http://client.example:8080/h?task=1', 'http://client.example:8080/h?task=1'],
    ['HTTPS://Client.Example', 'https://client.example/'],
    [' https://client.example/x ', 'https://client.example/x'],
  ])('accepts %j as %j', (input, normalized) => {
    expect(webhookUrl(input, 'url')).toBe(normalized);
  });

  it.each([
    [undefined, /url is required/],
    ['', /url is required/],
    [42, /url must be a string/],
    ['/relative/path', /not an absolute URL/],
    ['ftp://client.example/', /http or https/],
    ['file:///etc/passwd', /http or https/],
    ['javascript:alert(1)', /http or https/],
    ['https://user:pass@client.example/', /user name or password/],
    ['https://user@client.example/', /user name or password/],
    [`https://client.example/${'a'.repeat(2040)}`, /longer than 2048/],
  ])('refuses %j', (input, message) => {
    expect(() => webhookUrl(input, 'url')).toThrow(invalidParams(message));
  });
});

describe('1.0 configs', () => {
  it('reads the flat shape, in camelCase or snake_case', () => {
    const wire = { id: 'c1', taskId: 't1', url: 'https://h.example/', token: 'tok', authentication: { scheme: 'Bearer', credentials: 's3cret' } };
    expect(pushConfigFromV1(wire, 'params')).toEqual({ ...wire, version: '1.0' });
    expect(pushConfigFromV1({ task_id: 't1', url: 'https://h.example/' }, 'params')).toEqual({ taskId: 't1', url: 'https://h.example/', version: '1.0' });
  });

  it('takes the task from the caller for the inline form, and treats empty fields as absent', () => {
    const config = pushConfigFromV1({ id: '', taskId: '', url: 'https://h.example/', token: '', authentication: { scheme: '', credentials: '' } }, 'inline', 'task-9');
    expect(config).toEqual({ taskId: 'task-9', url: 'https://h.example/', version: '1.0' });
  });

  it.each([
    [{ url: 'https://h.example/' }, /params.taskId is required/],
    [{ taskId: 't', url: 'https://h.example/', token: 'a\r\nX-Evil: 1' }, /params.token must be printable ASCII/],
    [{ taskId: 't', url: 'https://h.example/', token: ' padded' }, /params.token must be printable ASCII/],
    [{ taskId: 't', url: 'https://h.example/', authentication: { credentials: 'x' } }, /scheme is required with credentials/],
    [{ taskId: 't', url: 'https://h.example/', authentication: { scheme: 'Bearer x', credentials: 'y' } }, /HTTP auth scheme/],
    [{ taskId: 't', url: 'https://h.example/', authentication: 'Bearer x' }, /authentication must be an object/],
    [{ taskId: 't', url: 'https://h.example/', id: 'x'.repeat(300) }, /params.id is longer/],
    [{ taskId: 't' }, /params.url is required/],
  ])('refuses %j', (wire, message) => {
    expect(() => pushConfigFromV1(wire, 'params')).toThrow(invalidParams(message));
  });

  it('writes the flat shape back without the credentials', () => {
    const config: PushConfig = { id: 'c1', taskId: 't1', url: 'https://h.example/', token: 'tok', authentication: { scheme: 'Bearer', credentials: 's3cret' }, version: '1.0' };
    expect(pushConfigToV1(config)).toEqual({ id: 'c1', taskId: 't1', url: 'https://h.example/', token: 'tok', authentication: { scheme: 'Bearer' } });
    expect(JSON.stringify(pushConfigToV1(config))).not.toContain('s3cret');
  });
});

describe('0.3 configs', () => {
  it('reads {taskId, pushNotificationConfig} with a list of schemes, keeping the first', () => {
    const params = { taskId: 't1', pushNotificationConfig: { id: 'c1', url: 'https://h.example/', token: 'tok-03', authentication: { schemes: ['Bearer', 'Basic'], credentials: 's3cret' } } };
    expect(taskPushConfigFromV03(params)).toEqual({
      id: 'c1',
      taskId: 't1',
      url: 'https://h.example/',
      token: 'tok-03',
      authentication: { scheme: 'Bearer', credentials: 's3cret' },
      version: '0.3',
    });
    expect(pushConfigFromV03({ url: 'https://h.example/', authentication: { schemes: [] } }, 'inline', 't2')).toEqual({ taskId: 't2', url: 'https://h.example/', version: '0.3' });
  });

  it.each([
    [{ pushNotificationConfig: { url: 'https://h.example/' } }, /params.taskId is required/],
    [{ taskId: 't1' }, /params.pushNotificationConfig is required/],
    [{ taskId: 't1', pushNotificationConfig: { url: 'gopher://h.example/' } }, /http or https/],
    [{ taskId: 't1', pushNotificationConfig: { url: 'https://h.example/', authentication: { schemes: 'Bearer' } } }, /schemes must be an array of strings/],
  ])('refuses %j', (params, message) => {
    expect(() => taskPushConfigFromV03(params)).toThrow(invalidParams(message));
  });

  it('writes the nested shape back, with schemes as a list and no credentials', () => {
    const config: PushConfig = { id: 'c1', taskId: 't1', url: 'https://h.example/', authentication: { scheme: 'Bearer', credentials: 's3cret' }, version: '0.3' };
    expect(pushConfigToV03(config)).toEqual({ taskId: 't1', pushNotificationConfig: { id: 'c1', url: 'https://h.example/', authentication: { schemes: ['Bearer'] } } });
  });
});

describe('reading configs', () => {
  it('never throws anything but INVALID_PARAMS, whatever it is given', () => {
    fc.assert(
      fc.property(fc.anything(), fc.anything(), (wire, inner) => {
        for (const read of [() => pushConfigFromV1(wire, 'p'), () => taskPushConfigFromV03({ taskId: 't', pushNotificationConfig: inner })]) {
          try {
            read();
          } catch (error) {
            expect(error).toBeInstanceOf(LiteError);
            expect((error as LiteError).code).toBe('INVALID_PARAMS');
          }
        }
      }),
    );
  });

  it('round-trips a config through 1.0 and 0.3 JSON, credentials aside', () => {
    const text = fc.stringMatching(/^[\x21-\x7e]{1,20}$/);
    fc.assert(
      fc.property(text, text, fc.option(text, { nil: undefined }), (id, taskId, token) => {
        const config: PushConfig = { id, taskId, url: 'https://h.example/hook', version: '1.0', authentication: { scheme: 'Bearer' } };
        if (token !== undefined) config.token = token;
        expect({ ...pushConfigFromV1(pushConfigToV1(config), 'p'), version: '1.0' }).toEqual(config);
        expect(taskPushConfigFromV03(pushConfigToV03({ ...config, version: '0.3' }))).toEqual({ ...config, version: '0.3' });
      }),
    );
  });
});
