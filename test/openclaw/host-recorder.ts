// Records what the plugin registers with OpenClaw, so that its tools and hooks can be called the
// way the gateway calls them. The real gateway is exercised by test/openclaw-e2e/.
import type { AgentTool, HostApi, ToolContext } from '../../src/openclaw/host.js';

export interface Registered {
  api: HostApi;
  logs: string[];
  tools(context: ToolContext): AgentTool[];
  names: string[];
  hooks: Map<string, (event: never, context: never) => unknown>;
}

export function recordingHost(pluginConfig: Record<string, unknown> | undefined, workspace: string): Registered {
  const logs: string[] = [];
  const hooks = new Map<string, (event: never, context: never) => unknown>();
  let factory: ((context: ToolContext) => AgentTool | AgentTool[] | null | undefined) | undefined;
  let names: string[] = [];
  const api = {
    id: 'a2a-lite',
    config: {},
    ...(pluginConfig ? { pluginConfig } : {}),
    logger: { info: (m: string) => logs.push(`info ${m}`), warn: (m: string) => logs.push(`warn ${m}`), error: (m: string) => logs.push(`error ${m}`) },
    runtime: { agent: { resolveAgentWorkspaceDir: () => workspace } },
    registerTool(tool: unknown, options?: { names?: string[] }) {
      factory = tool as typeof factory;
      names = options?.names ?? [];
    },
    registerService() {},
    on(hook: string, handler: (event: never, context: never) => unknown) {
      hooks.set(hook, handler);
    },
  } as unknown as HostApi;
  return {
    api,
    logs,
    hooks,
    get names() {
      return names;
    },
    tools(context) {
      const made = factory?.(context);
      return made === null || made === undefined ? [] : Array.isArray(made) ? made : [made];
    },
  };
}

/** Calls a tool by name as OpenClaw does, collecting the progress it reports. */
export async function call(tools: AgentTool[], name: string, params: Record<string, unknown>, signal?: AbortSignal) {
  const tool = tools.find((t) => t.name === name);
  if (tool === undefined) throw new Error(`no tool ${name}`);
  const updates: string[] = [];
  const result = await tool.execute('call-1', params, signal, (partial) => updates.push(partial.content[0]?.text ?? ''));
  return { text: result.content[0]?.text ?? '', details: result.details, updates };
}
