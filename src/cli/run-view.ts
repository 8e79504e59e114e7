// How `a2a-lite run` shows a plan as it runs: on a terminal, the tree of steps redrawn in place
// with a state and a progress bar each; one JSON line per event with --json; otherwise one plain
// line per change, for logs and pipes.

import type { RunEvent, StepOutline } from '../orchestrate/events.js';
import type { Context } from './context.js';

interface Row {
  state: string;
  progress?: number;
  agent?: string;
  task?: string;
  words?: string;
  items?: number;
}

const MARK: Record<string, string> = { waiting: '·', sending: '→', running: '●', completed: '✓', skipped: '–', failed: '✗', rejected: '✗', cancelled: '■', 'input-required': '?', 'auth-required': '?' };
const BAR = 12;

export class RunView {
  private outline: StepOutline[] = [];
  private readonly rows = new Map<string, Row>();
  private drawn = 0;
  private lastLine = new Map<string, string>();
  private title = '';

  constructor(
    private readonly context: Context,
    private readonly mode: 'tty' | 'lines' | 'json',
  ) {}

  show(event: RunEvent): void {
    if (this.mode === 'json') {
      this.context.stdout.write(`${JSON.stringify(event)}\n`);
      return;
    }
    if (event.type === 'run') {
      if (event.state === 'started' || event.state === 'resumed') {
        this.outline = event.steps;
        this.title = `plan ${event.name} · run ${event.run} (${event.state})`;
        if (this.mode === 'lines') this.line(this.title);
        else this.draw();
      }
      return;
    }
    const row = this.rows.get(event.key) ?? { state: 'waiting' };
    row.state = event.state;
    if (event.progress !== undefined) row.progress = event.progress;
    if (event.state === 'completed') row.progress = 100;
    if (event.agent !== undefined) row.agent = event.agent;
    if (event.task !== undefined) row.task = event.task;
    if (event.items !== undefined) row.items = event.items;
    const words = event.error ?? event.text;
    if (words !== undefined) row.words = oneLine(words);
    this.rows.set(event.key, row);
    if (this.mode === 'lines') {
      const text = `${event.key}: ${event.state}${event.attempt > 1 ? ` (attempt ${event.attempt})` : ''}${row.progress !== undefined && event.state === 'running' ? ` ${Math.round(row.progress)}%` : ''}${event.agent ? ` at ${event.agent}` : ''}${event.task ? ` task=${event.task}` : ''}${words ? ` · ${oneLine(words)}` : ''}`;
      if (this.lastLine.get(event.key) !== text) this.line(text);
      this.lastLine.set(event.key, text);
    } else this.draw();
  }

  /** Leaves the tree as it stands, below it the run's end. */
  finish(): void {
    if (this.mode === 'tty') this.draw();
  }

  private line(text: string): void {
    this.context.stdout.write(`${text}\n`);
  }

  private draw(): void {
    const lines = [this.title, ...this.treeLines()];
    const up = this.drawn > 0 ? `\x1b[${this.drawn}A\x1b[J` : '';
    this.context.stdout.write(`${up}${lines.join('\n')}\n`);
    this.drawn = lines.length;
  }

  private treeLines(): string[] {
    const depth = new Map<string, number>();
    const depthOf = (id: string): number => {
      const known = depth.get(id);
      if (known !== undefined) return known;
      const step = this.outline.find((s) => s.id === id);
      const d = step === undefined || step.needs.length === 0 ? 0 : 1 + Math.max(...step.needs.map(depthOf));
      depth.set(id, d);
      return d;
    };
    const out: string[] = [];
    for (const step of this.outline) {
      const indent = '  '.repeat(depthOf(step.id));
      const row = this.rows.get(step.id) ?? { state: 'waiting' };
      if (!step.each || row.items === undefined) {
        out.push(`${indent}${this.rowText(step.id, row)}`);
        continue;
      }
      // A fan-out is one line with a bar of its items; only items that are going or went wrong are listed.
      const items = [...this.rows.entries()].filter(([key]) => key.startsWith(`${step.id}.`));
      const done = items.filter(([, r]) => r.state === 'completed').length;
      out.push(`${indent}${this.rowText(step.id, { ...row, progress: (100 * done) / row.items, words: `${done}/${row.items} done` })}`);
      for (const [key, item] of items) if (item.state !== 'completed' && item.state !== 'waiting') out.push(`${indent}  ${this.rowText(key, item)}`);
    }
    return out;
  }

  private rowText(key: string, row: Row): string {
    const progress = row.progress ?? (row.state === 'completed' ? 100 : 0);
    const filled = Math.round((BAR * Math.min(100, Math.max(0, progress))) / 100);
    const bar = `[${'█'.repeat(filled)}${'░'.repeat(BAR - filled)}]`;
    const columns = Math.max(40, (this.context.stdout as { columns?: number }).columns ?? 100);
    const text = `${MARK[row.state] ?? '·'} ${key.padEnd(14)} ${row.state.padEnd(10)} ${bar} ${String(Math.round(progress)).padStart(3)}%${row.agent ? `  ${row.agent}` : ''}${row.words ? `  ${row.words}` : ''}`;
    return text.length > columns - 1 ? `${text.slice(0, columns - 2)}…` : text;
  }
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}
