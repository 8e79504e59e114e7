import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { filesUnder, tempHome } from '../../test/fixtures/home.js';
import { moveLegacyHome } from './legacy-home.js';

const EXAMPLE = '{"protocol":"a2a-lite/1.0","agent":{"id":"lumen"}}\n';

/** A workspace whose skill folder holds an agent's files, as earlier versions wrote them. */
function workspace(card = '{"protocol":"a2a-lite/1.0","agent":{"id":"mine"}}\n'): { skill: string; target: string } {
  const root = tempHome('workspace');
  const skill = join(root, 'skills', 'a2a-lite');
  mkdirSync(join(skill, 'tasks', 'mexico', 'email-1'), { recursive: true });
  mkdirSync(join(skill, 'known-agents'), { recursive: true });
  mkdirSync(join(skill, 'scripts'), { recursive: true });
  writeFileSync(join(skill, 'SKILL.md'), '---\nname: a2a-lite\n---\n');
  writeFileSync(join(skill, 'agent-card.json'), card);
  writeFileSync(join(skill, 'known-agents', 'mexico.json'), '{"agent":{"id":"mexico"}}');
  writeFileSync(join(skill, 'tasks', 'mexico', 'email-1', 'v00000001.json'), '{"state":"accepted"}');
  writeFileSync(join(skill, 'a2a-lite.db'), 'SQLite format 3\u0000');
  return { skill, target: join(root, '.a2a-lite') };
}

const contents = (dir: string) => Object.fromEntries(filesUnder(dir).map((path) => [path.slice(dir.length), readFileSync(path, 'utf8')]));

describe('moving a home out of the skill folder', () => {
  it('copies the card, known agents, ledger and database into the new home, and leaves the skill itself behind', () => {
    const { skill, target } = workspace();
    const before = contents(skill);
    const moved = moveLegacyHome(skill, target, EXAMPLE);
    expect(moved?.items).toEqual(['agent-card.json', 'known-agents', 'tasks', 'a2a-lite.db']);
    expect(readdirSync(target).sort()).toEqual(['a2a-lite.db', 'agent-card.json', 'known-agents', 'tasks']);
    for (const [path, text] of Object.entries(before)) if (!path.startsWith('/SKILL.md')) expect(readFileSync(join(target, path), 'utf8')).toBe(text);
    // The old files stay as they were: a server may still have its database open there.
    expect(contents(skill)).toEqual(before);
    expect(readdirSync(join(target, '..')).filter((name) => name.includes('.moving-'))).toEqual([]);
  });

  it('leaves the example card the skill ships where it is', () => {
    const { skill, target } = workspace(EXAMPLE);
    expect(moveLegacyHome(skill, target, EXAMPLE)?.items).toEqual(['known-agents', 'tasks', 'a2a-lite.db']);
    expect(existsSync(join(target, 'agent-card.json'))).toBe(false);
  });

  it('makes no home when the skill folder holds nothing of the agent', () => {
    const root = tempHome('fresh');
    const skill = join(root, 'skills', 'a2a-lite');
    mkdirSync(skill, { recursive: true });
    writeFileSync(join(skill, 'agent-card.json'), EXAMPLE);
    expect(moveLegacyHome(skill, join(root, '.a2a-lite'), EXAMPLE)).toBeUndefined();
    expect(existsSync(join(root, '.a2a-lite'))).toBe(false);
  });

  it('moves once: a home that exists is never touched again', () => {
    const { skill, target } = workspace();
    moveLegacyHome(skill, target, EXAMPLE);
    writeFileSync(join(target, 'agent-card.json'), 'changed since');
    writeFileSync(join(skill, 'agent-card.json'), 'the example again, after a reinstall');
    expect(moveLegacyHome(skill, target, EXAMPLE)).toBeUndefined();
    expect(readFileSync(join(target, 'agent-card.json'), 'utf8')).toBe('changed since');
  });

  it('starts over a move that was cut short, with nothing lost and no staging left', () => {
    const { skill, target } = workspace();
    const staging = `${target}.moving-999999-1`;
    mkdirSync(join(staging, 'tasks'), { recursive: true });
    writeFileSync(join(staging, 'agent-card.json'), '{"half":');
    const moved = moveLegacyHome(skill, target, EXAMPLE);
    expect(moved?.items).toContain('tasks');
    expect(readFileSync(join(target, 'agent-card.json'), 'utf8')).toBe(readFileSync(join(skill, 'agent-card.json'), 'utf8'));
    expect(existsSync(staging)).toBe(false);
  });
});
