// The part of OpenClaw's plugin API the a2a-lite plugin uses, as OpenClaw 2026.9 defines it
// (docs/plugins/building-plugins.md, hooks/messages.md, sdk-runtime/agent.md in its package).
// Written out here as structural types so that the package needs no dependency on OpenClaw: the
// host passes its own `api` object, which has these members and many more.

/** What a tool gives back: text for the model, and the value itself in `details`. */
export interface ToolResult {
  content: { type: 'text'; text: string }[];
  details: Record<string, unknown>;
}

/** A tool in the form `api.registerTool` takes (OpenClaw's core AgentTool). */
export interface AgentTool {
  name: string;
  label: string;
  description: string;
  /** JSON Schema of the arguments. */
  parameters: Record<string, unknown>;
  execute(toolCallId: string, params: Record<string, unknown>, signal?: AbortSignal, onUpdate?: (partial: ToolResult) => void): Promise<ToolResult>;
}

/** What OpenClaw tells a tool factory about the run the tool is built for. */
export interface ToolContext {
  workspaceDir?: string;
  agentId?: string;
  sessionKey?: string;
  messageChannel?: string;
  sandboxed?: boolean;
}

/** An inbound message before the model sees it (`before_dispatch`). */
export interface BeforeDispatchEvent {
  messageId?: string;
  content: string;
  body?: string;
  channel?: string;
  sessionKey?: string;
  senderId?: string;
  isGroup?: boolean;
}

export interface BeforeDispatchContext {
  channelId?: string;
  accountId?: string;
  conversationId?: string;
  sessionKey?: string;
  senderId?: string;
}

/** `{ handled: true, text }` answers the message without the model. */
export interface BeforeDispatchResult {
  handled: boolean;
  text?: string;
}

/** An outbound message before it is delivered (`message_sending`). */
export interface MessageSendingEvent {
  to: string;
  content: string;
  metadata?: Record<string, unknown>;
}

export interface MessageContext {
  channelId: string;
  accountId?: string;
  conversationId?: string;
  sessionKey?: string;
}

export interface MessageSendingResult {
  content?: string;
  cancel?: boolean;
  cancelReason?: string;
}

export interface HostLogger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export interface HostService {
  id: string;
  start(context: unknown): void | Promise<void>;
  stop?(context: unknown): void | Promise<void>;
}

export interface HostApi {
  id: string;
  config: Record<string, unknown>;
  pluginConfig?: Record<string, unknown>;
  logger: HostLogger;
  runtime?: {
    agent?: {
      resolveAgentWorkspaceDir?(config: Record<string, unknown>, agentId: string): string;
    };
  };
  registerTool(tool: AgentTool | ((context: ToolContext) => AgentTool | AgentTool[] | null | undefined), options?: { name?: string; names?: string[]; optional?: boolean }): void;
  registerService(service: HostService): void;
  on(hook: 'before_dispatch', handler: (event: BeforeDispatchEvent, context: BeforeDispatchContext) => Promise<BeforeDispatchResult | undefined> | BeforeDispatchResult | undefined, options?: { priority?: number }): void;
  on(hook: 'message_sending', handler: (event: MessageSendingEvent, context: MessageContext) => Promise<MessageSendingResult | undefined> | MessageSendingResult | undefined, options?: { priority?: number }): void;
}
