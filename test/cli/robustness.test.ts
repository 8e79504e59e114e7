// What users do to a home by accident, and what racing processes do: clear errors, nothing lost.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mexicoCard } from '../fixtures/cards.js';
import { tempHome } from '../fixtures/home.js';
import { cli, cliAsync } from './run-cli.js';

describe('robustness', () => {
  it('lets exactly one of 20 racing card init runs write the card', async () => {
    const home = tempHome();
    const runs = await Promise.all(Array.from({ length: 20 }, (_, i) => cliAsync(['card', 'init', '--id', `a${i}`, '--name', `A${i}`], { home })));
    expect(runs.filter((r) => r.code === 0)).toHaveLength(1);
    expect(runs.filter((r) => r.code === 5 && r.stderr.includes('CARD_EXISTS'))).toHaveLength(19);
    const winner = runs.findIndex((r) => r.code === 0);
    expect(JSON.parse(readFileSync(join(home, 'agent-card.json'), 'utf8')).agent.id).toBe(`a${winner}`);
  });

  it('ignores folders in the ledger that it did not write', () => {
    const home = tempHome();
    cli(['tasks', 'record', '--from', 'jiajia', '[A2A:task id=t-1]'], { home });
    mkdirSync(join(home, 'tasks', '100%'));
    mkdirSync(join(home, 'tasks', 'jiajia', 'bad%zz'));
    expect(cli(['tasks', 'list', '--json'], { home }).stdout).toContain('"id": "t-1"');
    expect(cli(['tasks', 'new', '--to', 'x'], { home }).code).toBe(0);
  });

  it('lists the good cached cards and names the broken one', () => {
    const home = tempHome();
    writeFileSync(join(home, 'mexico.json'), JSON.stringify(mexicoCard()));
    cli(['agents', 'add', join(home, 'mexico.json')], { home });
    writeFileSync(join(home, 'known-agents', 'broken.json'), JSON.stringify({ protocol: 'a2a-lite/1.0', agent: { id: 'broken' } }));
    const list = cli(['agents', 'list'], { home });
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('mexico');
    expect(list.stderr).toMatch(/note: left out: .*broken\.json no longer holds a valid card \(\/skills is required\); add the agent again/);
    const show = cli(['agents', 'show', 'broken'], { home });
    expect(show.code).toBe(7);
    expect(show.stderr).toContain('LEDGER_CORRUPT');
  });

  it('reports a home that is a file as a file-system error', () => {
    const file = join(tempHome(), 'not-a-folder');
    writeFileSync(file, 'x');
    for (const args of [
      ['card', 'init', '--id', 'a', '--name', 'A'],
      ['tasks', 'record', '--from', 'x', '[A2A:task id=t]'],
      ['tasks', 'new', '--to', 'x'],
      ['tasks', 'list'],
    ]) {
      const result = cli([...args, '--home', file]);
      expect(result.code, args.join(' ')).toBe(7);
      expect(result.stderr).toMatch(/^a2a-lite: IO_ERROR: could not (read|write) .*not-a-folder/);
    }
  });

  it('refuses to cache a message that is not a card', () => {
    const result = cli(['agents', 'add', '-'], { home: tempHome(), input: '[A2A:task id=research-001]\nhello' });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('this is an [A2A:task] message, not a card');
  });

  it('never repeats input in a JSON syntax error', () => {
    const secret = ['sk-', 'proj-', 'Zx81Qw0PlmNbV7cXe2RtYu9Io3As'].join('');
    const result = cli(['card', 'init', '--id', 'a', '--name', 'A', '--skill', `{"id":"x","token": ${secret}`], { home: tempHome() });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('INVALID_JSON: a --skill JSON object is not valid JSON');
    expect(result.stderr).not.toContain('sk-');
  });

  it('refuses a card nested beyond reason instead of crashing', () => {
    const home = tempHome();
    const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    writeFileSync(join(home, 'deep.json'), `{"protocol":"a2a-lite/1.0","agent":{"id":"d","name":"D","framework":"other"},"skills":[],"x":${deep}}`);
    const result = cli(['agents', 'add', join(home, 'deep.json')], { home });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('INVALID_CARD: card is invalid: / nests deeper than 32 levels');
  });
});
