// What `serve` and `hub` share for running on a public host (docs/operations.md): the audit
// trail (`--audit FILE`), the limits per caller (`--rate-limit` …), and SIGHUP, which reads
// the token files again and reopens the audit file (logrotate moves it, then sends SIGHUP).

import type { AuditSink } from '../a2a/server/audit.js';
import type { LimitOptions } from '../a2a/server/caller-limits.js';
import { parseRate, type Rate } from '../a2a/server/token-bucket.js';
import { LiteError } from '../errors.js';
import { openAuditFile, type AuditFile } from '../serve/audit-file.js';
import type { Context } from './context.js';
import type { CredentialSources } from './credential-sources.js';
import { resolve } from 'node:path';

export const OPERATIONS_OPTIONS = {
  audit: { type: 'string' },
  'rate-limit': { type: 'string' },
  'rate-burst': { type: 'string' },
  'address-rate-limit': { type: 'string' },
  'address-rate-burst': { type: 'string' },
  'max-streams-per-caller': { type: 'string' },
  'max-tasks-per-caller': { type: 'string' },
} as const;

export const OPERATIONS_HELP = `  --audit FILE            append a JSON line to FILE for each security event (failed login,
                          limit hit, tokens read again) and each request that changes state:
                          time, principal, address, action, agent, task, outcome; never a
                          token or a message's text. Reopened on SIGHUP (for logrotate)
  --rate-limit R          requests of each principal: R is 20/s, 600/m, 5000/h; over it, 429
                          with Retry-After. --rate-burst N: how many at once (default 2 s' worth)
  --address-rate-limit R  the same for each address without a valid token (every caller when
                          no token is set); --address-rate-burst N
  --max-streams-per-caller N  open streams of each caller (principal, else address)
  --max-tasks-per-caller N    tasks not yet ended of each principal (hub: sends in flight)
                          SIGHUP reads the token files again: a changed or emptied file's old
                          token stops working and its streams close; a new one works at once`;

type OperationsValues = { [K in keyof typeof OPERATIONS_OPTIONS]?: string };

/** The limits the flags set; undefined when none. USAGE for a malformed one. */
export function limitsFrom(command: string, values: OperationsValues, authOn: boolean): LimitOptions | undefined {
  const limits: LimitOptions = {};
  const rate = rateOf(command, '--rate-limit', values['rate-limit'], '--rate-burst', values['rate-burst']);
  const address = rateOf(command, '--address-rate-limit', values['address-rate-limit'], '--address-rate-burst', values['address-rate-burst']);
  if (rate !== undefined && !authOn) throw new LiteError('USAGE', `${command}: --rate-limit limits each principal, and no token is set; limit each address with --address-rate-limit`);
  if (rate !== undefined) limits.rate = rate;
  if (address !== undefined) limits.addressRate = address;
  const streams = countOf(command, '--max-streams-per-caller', values['max-streams-per-caller']);
  const tasks = countOf(command, '--max-tasks-per-caller', values['max-tasks-per-caller']);
  if (streams !== undefined) limits.maxStreams = streams;
  if (tasks !== undefined) limits.maxTasks = tasks;
  return Object.keys(limits).length === 0 ? undefined : limits;
}

function rateOf(command: string, option: string, given: string | undefined, burstOption: string, burst: string | undefined): Rate | undefined {
  if (given === undefined) {
    if (burst !== undefined) throw new LiteError('USAGE', `${command}: ${burstOption} needs ${option}`);
    return undefined;
  }
  const perSecond = parseRate(given);
  if (perSecond === undefined || perSecond > 1_000_000) throw new LiteError('USAGE', `${command}: ${option} is a number of requests per second, minute or hour: 20/s, 600/m, 5000/h`);
  const size = burst === undefined ? Math.max(1, Math.ceil(perSecond * 2)) : countOf(command, burstOption, burst);
  return { perSecond, burst: size as number };
}

function countOf(command: string, option: string, given: string | undefined): number | undefined {
  if (given === undefined) return undefined;
  if (!/^[1-9]\d{0,8}$/.test(given)) throw new LiteError('USAGE', `${command}: ${option} is a whole number from 1 to 999999999`);
  return Number(given);
}

/** The limits and the audit file in a few words, for the lines a server prints when it starts. */
export function describeOperations(limits: LimitOptions | undefined, auditPath: string | undefined): string {
  const rate = (what: string, given: Rate | undefined): string[] => (given === undefined ? [] : [`${Number(given.perSecond.toPrecision(3))}/s (burst ${given.burst}) ${what}`]);
  const words = [
    ...rate('a principal', limits?.rate),
    ...rate('an address', limits?.addressRate),
    ...(limits?.maxStreams === undefined ? [] : [`${limits.maxStreams} streams a caller`]),
    ...(limits?.maxTasks === undefined ? [] : [`${limits.maxTasks} tasks a caller`]),
  ];
  return [words.length === 0 ? 'no limits per caller' : words.join(', '), auditPath === undefined ? 'no audit file' : `audit in ${auditPath}`].join('; ');
}

/** The audit file and SIGHUP of a running server. */
export interface Operations {
  audit: AuditSink | undefined;
  /** The audit file's path, when there is one. */
  auditPath: string | undefined;
  /** Stops listening for SIGHUP and writes out the audit file. */
  close(): Promise<void>;
}

/**
 * Opens the audit file (USAGE when it cannot be) and, when there is something to do on
 * SIGHUP (token files to read again, an audit file to reopen), listens for it.
 */
export function startOperations(command: string, values: OperationsValues, context: Context, sources: CredentialSources | undefined): Operations {
  const log = (line: string): void => void context.stderr.write(`${line}\n`);
  const file: AuditFile | undefined = values.audit === undefined ? undefined : openAuditFile(resolve(context.cwd, values.audit), log);
  const audit: AuditSink | undefined = file === undefined ? undefined : (event) => file.write(event);
  const hangup = (): void => {
    file?.reopen();
    sources?.reread(log, audit);
  };
  // Without a listener SIGHUP stops the process, as it always has: listen only when it has a use.
  const listening = file !== undefined || sources?.rereadable === true;
  if (listening) process.on('SIGHUP', hangup);
  return {
    audit,
    auditPath: file?.path,
    async close() {
      if (listening) process.off('SIGHUP', hangup);
      await file?.close();
    },
  };
}
