// The --exec command line as it runs: the program runs in each task's own folder, so paths the
// user wrote relative to where `serve` was started (`./agent.sh`, `python3 agent.py`) are made
// absolute first. Only plain words are touched; a bare program name is left to PATH.

import { statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';

/** Characters that end the simple command: after them the line is left as written. */
const OPERATORS = new Set(['|', '&', ';', '<', '>', '(', ')', '`', '$', '\n']);

interface Word {
  start: number;
  end: number;
  text: string;
}

/**
 * The command line with every word that names an existing file relative to `cwd` made absolute
 * (single-quoted). The first word is a program name looked up on PATH unless it holds a `/`.
 *
 * @example
 * resolveCommand('python3 agent.py --fast', '/srv/bot') // "python3 '/srv/bot/agent.py' --fast"
 * resolveCommand('./agent.sh', '/srv/bot')              // "'/srv/bot/agent.sh'"
 */
export function resolveCommand(command: string, cwd: string): string {
  let out = '';
  let at = 0;
  for (const [index, word] of wordsOf(command).entries()) {
    if (word.text === '' || isAbsolute(word.text) || word.text.startsWith('-') || word.text.startsWith('~')) continue;
    if (index === 0 && !word.text.includes('/')) continue;
    const path = resolve(cwd, word.text);
    if (!isFile(path)) continue;
    out += `${command.slice(at, word.start)}${quoted(path)}`;
    at = word.end;
  }
  return out + command.slice(at);
}

/** The words of the simple command that opens the line, with where each stands in it. */
function wordsOf(command: string): Word[] {
  const words: Word[] = [];
  let i = 0;
  while (i < command.length) {
    while (i < command.length && (command[i] === ' ' || command[i] === '\t')) i += 1;
    if (i >= command.length || OPERATORS.has(command[i] as string)) break;
    const start = i;
    let text = '';
    let plain = true;
    while (i < command.length && command[i] !== ' ' && command[i] !== '\t') {
      const c = command[i] as string;
      if (OPERATORS.has(c)) return words; // an operator inside a word: the simple command ends before it
      if (c === "'") {
        const close = command.indexOf("'", i + 1);
        if (close < 0) return words;
        text += command.slice(i + 1, close);
        i = close + 1;
      } else if (c === '"') {
        let j = i + 1;
        for (; j < command.length && command[j] !== '"'; j += 1) {
          if (command[j] === '$' || command[j] === '`') plain = false;
          if (command[j] === '\\' && j + 1 < command.length) j += 1;
          text += command[j];
        }
        if (j >= command.length) return words;
        i = j + 1;
      } else if (c === '\\' && i + 1 < command.length) {
        text += command[i + 1];
        i += 2;
      } else {
        if (c === '*' || c === '?' || c === '[') plain = false;
        text += c;
        i += 1;
      }
    }
    if (plain) words.push({ start, end: i, text });
    else words.push({ start, end: i, text: '' });
  }
  return words;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function quoted(path: string): string {
  return `'${path.replace(/'/g, `'\\''`)}'`;
}
