// What the SDK peer's agent does with a message, written once for both SDK versions: each
// executor turns these calls into its own SDK's task, status and artifact events.
import { setTimeout as sleep } from 'node:timers/promises';

export type PeerState = 'working' | 'input-required' | 'auth-required' | 'completed' | 'failed' | 'rejected' | 'canceled';

export type PeerPart = { text: string } | { file: { name: string; mediaType: string; bytes: Uint8Array } };

/** A file part the requester sent: `size` for inline bytes (decoded), `url` for a link. */
export interface ReceivedFile {
  name: string;
  size?: number;
  url?: string;
}

/** The message as the behaviour sees it, whatever the SDK version. */
export interface Turn {
  /** The text of the first text part. */
  text: string;
  files: ReceivedFile[];
  /** The message continues an existing task, as a reply to `ask` does. */
  followUp: boolean;
}

export interface Publisher {
  status(state: PeerState, text?: string): void;
  artifact(name: string, parts: PeerPart[]): void;
  /** Destroys the SSE response carrying this request once it has written an event containing `marker`. */
  cutStreamAfter(marker: string): void;
}

export const STEP_MS = 100;
export const REPORT_MARKDOWN = '# Report\n\nAgents talk.\n';
/** Keeps `slow <n>` bounded whatever a test sends. */
const MAX_STEPS = 50;

/**
 * Runs one turn. Resolves once the turn has published its last event, or early and silently
 * when `signal` aborts (cancel or peer shutdown), since the canceller publishes the canceled state.
 */
export async function behave(turn: Turn, out: Publisher, signal: AbortSignal): Promise<void> {
  const complete = (text: string) => {
    out.artifact('result', [{ text }]);
    out.status('completed');
  };
  if (turn.followUp) return complete(`got: ${turn.text}`);
  const [, command = '', argument = ''] = /^(\S*)\s*([\s\S]*)$/.exec(turn.text.trim()) ?? [];
  switch (command) {
    case 'echo':
      out.status('working', 'working on it');
      return complete(`echo: ${argument}`);
    case 'ask':
      return out.status('input-required', argument);
    case 'cut':
    case 'slow': {
      const steps = Math.min(Math.max(Number.parseInt(argument, 10) || 1, 1), MAX_STEPS);
      if (command === 'cut') out.cutStreamAfter(`step 2 of ${steps}`);
      for (let step = 1; step <= steps; step += 1) {
        if (!(await pause(signal))) return;
        out.status('working', `step ${step} of ${steps}`);
      }
      return complete(`done after ${steps} steps`);
    }
    case 'file':
      out.artifact('report', [
        { text: 'here is the report' },
        { file: { name: 'report.md', mediaType: 'text/markdown', bytes: new TextEncoder().encode(REPORT_MARKDOWN) } },
      ]);
      return out.status('completed');
    case 'files-in': {
      const listed = turn.files.map((file) => (file.url === undefined ? `${file.name} (${file.size ?? 0} bytes)` : `${file.name} (url)`));
      return complete(`received: ${listed.join(', ') || 'nothing'}`);
    }
    case 'fail':
      return out.status('failed', argument);
    case 'reject':
      return out.status('rejected', 'not my job');
    case 'auth':
      return out.status('auth-required', 'log in first');
    default:
      return complete(`unknown: ${turn.text}`);
  }
}

/** Waits one step; false when aborted, so no timer outlives a cancel or `close()`. */
const pause = (signal: AbortSignal): Promise<boolean> =>
  sleep(STEP_MS, true, { signal }).catch(() => false);
