// The demo's last part: a plan run across the agents with `a2a-lite run`'s engine. The report
// 佳佳 wrote goes to three people at once (a fan-out to Mexico, side by side), then Mexico sends a
// confirmation built from the three answers.

import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Stores } from '../../home/stores.js';
import { parsePlan } from '../../orchestrate/plan-file.js';
import { runPlan } from '../../orchestrate/run-plan.js';
import type { RunRecord } from '../../orchestrate/run-state.js';
import { LiteError } from '../../errors.js';
import type { Context } from '../context.js';
import { RunView } from '../run-view.js';

/** The plan the demo runs, with Mexico's address in it. */
export function demoPlan(mexicoUrl: string): string {
  return `name: share-the-report
steps:
  - id: send
    agent: ${mexicoUrl}
    each: [鲁伊科斯塔, 安娜, 李雷]
    text: 把这份调研报告发给{{item}}。
    attach: [report.md]
  - id: confirm
    agent: ${mexicoUrl}
    text: "请确认三封邮件都已发出：{{steps.send.text}}"
output: "{{steps.confirm.text}}"
`;
}

/** Runs the demo plan from `root`/plan with `report` beside it; returns the run as recorded. */
export async function playPlan(stores: Stores, root: string, report: string, mexicoUrl: string, context: Context, json: boolean, say: (line?: string) => void): Promise<RunRecord> {
  const folder = join(root, 'plan');
  mkdirSync(folder, { recursive: true });
  copyFileSync(report, join(folder, 'report.md'));
  const text = demoPlan(mexicoUrl);
  say('plan.yaml:');
  for (const line of text.trimEnd().split('\n')) say(`  ${line}`);
  say();
  const view = json ? undefined : new RunView(context, 'lines');
  const { run } = await runPlan(await parsePlan(text, 'plan.yaml'), { stores, root: folder, env: context.env, maxParallel: 3, onEvent: (event) => view?.show(event) });
  if (run.state !== 'completed') throw new LiteError('INTERNAL', `the demo plan ended ${run.state}: ${run.error ?? ''}`);
  say();
  say(`run ${run.id} completed; its output:`);
  say(run.output?.text ?? '');
  return run;
}
