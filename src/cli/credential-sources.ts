// Where the tokens of `serve` and `hub` come from: environment variables (read once: a running
// process's environment does not change) and token files (read again on SIGHUP). They fill one
// KeyRing; a reread replaces its content, and the ring tells the server whose streams and links
// to close. What changed is logged and audited by principal, never by token.

import { KeyRing, type Credential, type CredentialLists } from '../a2a/server/auth.js';
import { tell, type AuditSink } from '../a2a/server/audit.js';
import { LiteError } from '../errors.js';
import { firstRead, readTokenFile, sharedWarning, type TokenFile } from './token-files.js';

/** The credentials of one kind: from variables, and from files. */
export interface KindSources {
  env?: Credential[];
  files?: TokenFile[];
}

export class CredentialSources {
  /** The ring the server reads; undefined when no token was named at all (auth off). */
  readonly ring: KeyRing | undefined;
  private readonly kinds: { bearer: Required<KindSources>; apiKeys: Required<KindSources> };
  /** Each file's token as last read; '' once its file was emptied (withdrawn). */
  private readonly fileTokens = new Map<string, string>();

  constructor(
    private readonly command: string,
    bearer: KindSources,
    apiKeys: KindSources,
    warn: (line: string) => void,
  ) {
    this.kinds = { bearer: { env: bearer.env ?? [], files: bearer.files ?? [] }, apiKeys: { env: apiKeys.env ?? [], files: apiKeys.files ?? [] } };
    const fromEnv = new Set([...this.kinds.bearer.env, ...this.kinds.apiKeys.env].map((credential) => credential.principal));
    const seen = new Set<string>();
    for (const file of this.files()) {
      if (fromEnv.has(file.name)) throw new LiteError('USAGE', `${command}: ${file.name} is named by an environment variable and by ${file.option}; one principal has one token`);
      if (seen.has(file.name)) throw new LiteError('USAGE', `${command}: ${file.name} has two token files; one principal has one token`);
      seen.add(file.name);
    }
    for (const [index, credential] of firstRead(command, this.files(), warn).entries()) this.fileTokens.set((this.files()[index] as TokenFile).name, credential.secret);
    const lists = this.lists();
    const any = (lists.bearerTokens?.length ?? 0) + (lists.apiKeys?.length ?? 0) > 0;
    try {
      this.ring = any ? new KeyRing(lists) : undefined;
    } catch (error) {
      throw error instanceof LiteError ? new LiteError('USAGE', `${command}: ${error.message}`) : error;
    }
  }

  /** True when some token comes from a file, to be read again on SIGHUP. */
  get rereadable(): boolean {
    return this.files().length > 0;
  }

  /** How many tokens are accepted now. */
  get count(): number {
    const lists = this.lists();
    return (lists.bearerTokens?.length ?? 0) + (lists.apiKeys?.length ?? 0);
  }

  /**
   * Reads every token file again (SIGHUP) and puts what they hold in the ring: a changed token
   * replaces the old one, an emptied file withdraws its token, a file that cannot be read keeps
   * the token it had. Each principal's change is logged and audited.
   */
  reread(log: (line: string) => void, audit: AuditSink | undefined): void {
    if (this.ring === undefined) return;
    const before = new Map(this.fileTokens);
    for (const file of this.files()) {
      try {
        const read = readTokenFile(file);
        this.fileTokens.set(file.name, read.token);
        const warning = sharedWarning(file, read);
        if (warning !== undefined) log(warning);
      } catch (error) {
        const lite = error instanceof LiteError ? error : new LiteError('IO_ERROR', String(error));
        log(`a2a-lite: ${this.command}: reading tokens again (SIGHUP): ${lite.message}; ${file.name} keeps the token it had`);
        tell(audit, { action: 'token-reload', principal: file.name, outcome: lite.code, detail: 'kept' });
      }
    }
    let change;
    try {
      change = this.ring.replace(this.lists());
    } catch (error) {
      for (const [name, token] of before) this.fileTokens.set(name, token);
      log(`a2a-lite: ${this.command}: reading tokens again (SIGHUP): ${(error as Error).message}; no token changed`);
      tell(audit, { action: 'token-reload', outcome: error instanceof LiteError ? error.code : 'INTERNAL', detail: 'nothing changed' });
      return;
    }
    const words: string[] = [];
    for (const [detail, names] of [['added', change.added], ['changed', change.changed], ['withdrawn', change.removed]] as const) {
      for (const principal of names) {
        words.push(`${principal} ${detail}`);
        tell(audit, { action: 'token-reload', principal, outcome: 'ok', detail });
      }
    }
    log(`a2a-lite: ${this.command}: tokens read again (SIGHUP): ${words.length === 0 ? 'none changed' : words.join(', ')}; ${this.count} accepted`);
  }

  private files(): TokenFile[] {
    return [...this.kinds.bearer.files, ...this.kinds.apiKeys.files];
  }

  private lists(): CredentialLists {
    const fromFiles = (files: readonly TokenFile[]): Credential[] =>
      files.flatMap((file) => {
        const secret = this.fileTokens.get(file.name) ?? '';
        return secret === '' ? [] : [{ principal: file.name, secret }];
      });
    const bearer = [...this.kinds.bearer.env, ...fromFiles(this.kinds.bearer.files)];
    const keys = [...this.kinds.apiKeys.env, ...fromFiles(this.kinds.apiKeys.files)];
    // A kind named at start stays a kind the server takes, even while none of its tokens is left.
    return {
      ...(this.kinds.bearer.env.length + this.kinds.bearer.files.length > 0 ? { bearerTokens: bearer } : {}),
      ...(this.kinds.apiKeys.env.length + this.kinds.apiKeys.files.length > 0 ? { apiKeys: keys } : {}),
    };
  }
}
