// A push notification config as every layer holds it, whichever A2A version made it, and the
// service the push methods call to keep configs (implemented by the push sender).

/** The A2A version a config was made with: it decides the body its webhook receives. */
export type PushVersion = '1.0' | '0.3';

/** How the agent authenticates to the webhook: `Authorization: <scheme> <credentials>`. */
export interface PushAuthentication {
  scheme: string;
  credentials?: string;
}

export interface PushConfig {
  id: string;
  taskId: string;
  url: string;
  /** Sent back to the webhook in `X-A2A-Notification-Token`, for it to check. */
  token?: string;
  authentication?: PushAuthentication;
  version: PushVersion;
}

/** A config as a client sends it: the server gives it an id when it has none. */
export type PushConfigInput = Omit<PushConfig, 'id'> & { id?: string };

/** What the push methods call. The push sender implements it; the A2A layer knows only this. */
export interface PushConfigService {
  /**
   * Checks where the URL leads (WEBHOOK_REFUSED), gives the config an id when it has none, and
   * stores it, replacing a config of the task with the same id.
   */
  save(config: PushConfigInput): Promise<PushConfig>;
  get(taskId: string, id: string): Promise<PushConfig | undefined>;
  /** Oldest first. */
  list(taskId: string): Promise<PushConfig[]>;
  /** Removes the config and what is still to be sent to it; false when there was none. */
  delete(taskId: string, id: string): Promise<boolean>;
}
