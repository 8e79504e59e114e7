// Push notification configs on the wire: the checks on what a client sends, and the 1.0 (flat)
// and 0.3 (nested) JSON shapes of the one model (model/push-config.ts). Where a webhook URL may
// lead (loopback, private networks) is decided later, by net/address-guard.ts.

import type { PushAuthentication, PushConfig, PushConfigInput } from '../../model/push-config.js';
import { asObject, field, invalidField, optionalString, type Json } from './fields.js';

export const MAX_URL_LENGTH = 2048;
/** Ids, tokens and credentials are echoed in headers or keys; these bound what a client can park. */
const MAX_ID_LENGTH = 256;
const MAX_SECRET_LENGTH = 4096;
/** An HTTP auth scheme is an RFC 9110 token: `Bearer`, `Basic`, `ApiKey`. */
const SCHEME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/;
/** Printable ASCII without leading or trailing blanks: what a header value can carry as is. */
const HEADER_VALUE = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

/**
 * Checks a webhook URL and returns it normalized: absolute, http or https, at most 2048
 * characters, and without a user name or password (those belong in `authentication`).
 *
 * @example
 * webhookUrl('https://client.example/hooks/a2a', 'params.url'); // 'https://client.example/hooks/a2a'
 */
export function webhookUrl(value: unknown, path: string): string {
  if (value === undefined || value === null || value === '') throw invalidField(`${path}`, `is required`);
  if (typeof value !== 'string') throw invalidField(`${path}`, `must be a string`);
  if (value.length > MAX_URL_LENGTH) throw invalidField(`${path}`, `is longer than ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalidField(`${path}`, `is not an absolute URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalidField(`${path}`, `must be an http or https URL`);
  if (url.username !== '' || url.password !== '') {
    throw invalidField(`${path}`, `must not carry a user name or password; put credentials in authentication`);
  }
  if (url.href.length > MAX_URL_LENGTH) throw invalidField(`${path}`, `is longer than ${MAX_URL_LENGTH} characters`);
  return url.href;
}

/**
 * Reads a 1.0 TaskPushNotificationConfig (flat), as CreateTaskPushNotificationConfig takes it or
 * inside SendMessage's `configuration.taskPushNotificationConfig`. `taskId` is required unless
 * the caller knows the task (the inline form, where it should be empty).
 */
export function pushConfigFromV1(value: unknown, path: string, taskId?: string): PushConfigInput {
  const object = asObject(value, path);
  const ownTaskId = optionalString(object, `${path}.taskId`, 'taskId', 'task_id');
  const task = taskId ?? ownTaskId;
  if (!task) throw invalidField(`${path}.taskId`, `is required`);
  const config: PushConfigInput = { taskId: task, url: webhookUrl(field(object, 'url'), `${path}.url`), version: '1.0' };
  assign(config, object, path);
  const auth = field(object, 'authentication');
  if (auth !== undefined && auth !== null) {
    const authObject = asObject(auth, `${path}.authentication`);
    const scheme = optionalString(authObject, `${path}.authentication.scheme`, 'scheme');
    const credentials = secret(authObject, `${path}.authentication.credentials`, 'credentials');
    const authentication = authenticationOf(scheme, credentials, `${path}.authentication.scheme`);
    if (authentication) config.authentication = authentication;
  }
  return config;
}

/**
 * Reads a 0.3 PushNotificationConfig `{id?, url, token?, authentication?: {schemes, credentials?}}`.
 * 0.3 lets a client offer several schemes; the agent picks one, and this one takes the first.
 */
export function pushConfigFromV03(value: unknown, path: string, taskId: string): PushConfigInput {
  const object = asObject(value, path);
  const config: PushConfigInput = { taskId, url: webhookUrl(field(object, 'url'), `${path}.url`), version: '0.3' };
  assign(config, object, path);
  const auth = field(object, 'authentication');
  if (auth !== undefined && auth !== null) {
    const authObject = asObject(auth, `${path}.authentication`);
    const schemes = field(authObject, 'schemes');
    if (schemes !== undefined && (!Array.isArray(schemes) || !schemes.every((s) => typeof s === 'string'))) {
      throw invalidField(`${path}.authentication.schemes`, `must be an array of strings`);
    }
    const scheme = (schemes as string[] | undefined)?.find((s) => s !== '');
    const credentials = secret(authObject, `${path}.authentication.credentials`, 'credentials');
    const authentication = authenticationOf(scheme, credentials, `${path}.authentication.schemes`);
    if (authentication) config.authentication = authentication;
  }
  return config;
}

/** Reads 0.3's `tasks/pushNotificationConfig/set` params: `{taskId, pushNotificationConfig}`. */
export function taskPushConfigFromV03(params: Json): PushConfigInput {
  const taskId = optionalString(params, 'params.taskId', 'taskId');
  if (!taskId) throw invalidField('params.taskId', 'is required');
  const inner = field(params, 'pushNotificationConfig');
  if (inner === undefined || inner === null) throw invalidField('params.pushNotificationConfig', 'is required');
  return pushConfigFromV03(inner, 'params.pushNotificationConfig', taskId);
}

/**
 * A config as 1.0 JSON. Credentials are never sent back: they authenticate this agent to the
 * client's webhook, and whoever can read a task must not learn them. The token is, since it is
 * the client's own value for matching notifications to tasks.
 */
export function pushConfigToV1(config: PushConfig): Json {
  const out: Json = { id: config.id, taskId: config.taskId, url: config.url };
  if (config.token !== undefined) out.token = config.token;
  if (config.authentication !== undefined) out.authentication = { scheme: config.authentication.scheme };
  return out;
}

/** A config as 0.3's TaskPushNotificationConfig, credentials left out as in 1.0. */
export function pushConfigToV03(config: PushConfig): Json {
  const inner: Json = { id: config.id, url: config.url };
  if (config.token !== undefined) inner.token = config.token;
  if (config.authentication !== undefined) inner.authentication = { schemes: [config.authentication.scheme] };
  return { taskId: config.taskId, pushNotificationConfig: inner };
}

/** The `id` and `token` both versions name alike. An empty one counts as none, as in ProtoJSON. */
function assign(config: PushConfigInput, object: Json, path: string): void {
  const id = optionalString(object, `${path}.id`, 'id');
  if (id) {
    if (id.length > MAX_ID_LENGTH) throw invalidField(`${path}.id`, `is longer than ${MAX_ID_LENGTH} characters`);
    config.id = id;
  }
  const token = secret(object, `${path}.token`, 'token');
  if (token !== undefined) config.token = token;
}

/** A value that goes into a request header: printable ASCII, so it cannot add header lines. */
function secret(object: Json, path: string, name: string): string | undefined {
  const value = optionalString(object, path, name);
  if (value === undefined || value === '') return undefined;
  if (value.length > MAX_SECRET_LENGTH || !HEADER_VALUE.test(value)) {
    throw invalidField(`${path}`, `must be printable ASCII without surrounding blanks, at most ${MAX_SECRET_LENGTH} characters`);
  }
  return value;
}

function authenticationOf(scheme: string | undefined, credentials: string | undefined, path: string): PushAuthentication | undefined {
  if (!scheme) {
    if (credentials !== undefined) throw invalidField(`${path}`, `is required with credentials`);
    return undefined;
  }
  if (!SCHEME.test(scheme)) throw invalidField(`${path}`, `must be an HTTP auth scheme such as Bearer`);
  return credentials === undefined ? { scheme } : { scheme, credentials };
}
