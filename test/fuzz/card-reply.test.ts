// Fuzzing the card-reply reader: any text, mostly replies written the way agents write them
// (render's output bent out of shape, identity, skill, capability and channel lines in Chinese
// and English, mixed with hostile lines), gives a well-formed card and an honest account of
// what was found and what is missing. Never an exception.
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { jiajiaCard, mexicoCard } from '../../src/card/examples.js';
import { parseCardReply } from '../../src/card/parse-reply.js';
import { render } from '../../src/card/render.js';
import { FRAMEWORKS, PROTOCOL_VERSION, type LiteCard } from '../../src/card/types.js';
import { checkCard } from '../../src/card/validate.js';
import { check } from './expect-fast.js';
import { hostileText, line, words } from './hostile-text.js';
import { applyEdits, edits } from './json-mutations.js';
import { fuzzOptions, fuzzTarget, fuzzTimeout } from './runs.js';

const name = fc.oneof(fc.constantFrom('佳佳', 'Mexico', 'SDK Peer', 'a', ' ', 'I am', '我是', '(x)', 'n（id）'), words(3));
const id = fc.oneof(fc.constantFrom('jiajia', 'mexico', 'x.y_z-1', '../etc', '', 'a b', '（）'), words(2));
const framework = fc.constantFrom('Clawdbot', 'OpenClaw', 'openclaw', 'LangChain', '', 'X'.repeat(40));
const open = fc.constantFrom('(', '（');
const shut = fc.constantFrom(')', '）');

const identityLine = fc.oneof(
  fc.tuple(name, framework).map(([n, f]) => `我是${n}，运行在 ${f} 上。`),
  fc.tuple(name, open, id, shut, framework).map(([n, o, i, s, f]) => `I am ${n} ${o}${i}${s}, running on ${f}.`),
  fc.tuple(name, fc.constantFrom("I'm ", 'i am ', 'I am  ', '我是 ')).map(([n, lead]) => `${lead}${n}.`),
);
const skillLine = fc
  .tuple(fc.constantFrom('-', '*', '•', '·', '  -', '-\t', '— '), name, fc.option(fc.tuple(open, id, shut), { nil: undefined }), fc.constantFrom('：', ': ', ':', ''), words(4))
  .map(([bullet, n, withId, colon, description]) => `${bullet} ${n}${withId === undefined ? '' : ` ${withId.join('')}`}${colon}${description}`);
const capabilityLine = fc.oneof(
  fc.constantFrom('支持文件传输，不支持流式输出、异步任务、推送通知。', 'Supports file transfer; does not support streaming.', "can't stream, but files are fine", '不能推送 but 可以 webhook', 'no async. supports push'),
  fc.tuple(fc.constantFrom('支持', '不支持', 'supports ', 'does not support ', 'no '), fc.constantFrom('文件', '流式', '异步', '推送', 'file', 'stream', 'async', 'push', 'webhook'), words(2)).map((parts) => parts.join('')),
);
const channelLine = fc.tuple(fc.constantFrom('可达通道：', 'Channels: ', 'channel:', '通道 : '), fc.array(words(2), { maxLength: 4 })).map(([label, list]) => label + list.join(', '));
const header = fc.oneof(fc.constant('[A2A:card]'), id.map((i) => `[A2A:card id=${i}]`), line);
const replyLine = fc.oneof(
  { arbitrary: identityLine, weight: 2 },
  { arbitrary: skillLine, weight: 3 },
  { arbitrary: capabilityLine, weight: 2 },
  { arbitrary: channelLine, weight: 1 },
  { arbitrary: line, weight: 2 },
);
const written = fc.tuple(header, fc.array(replyLine, { maxLength: 8 }), fc.constantFrom('\n', '\n', '\r\n')).map(([h, lines, end]) => [h, ...lines].join(end));

/** render's own output, for a card bent out of shape (render trusts a valid card; any is fine here). */
const rendered = fc
  .tuple(fc.constantFrom(jiajiaCard(), mexicoCard()), edits(4, 2), fc.constantFrom('zh' as const, 'en' as const))
  .map(([base, list, lang]) => {
    const bent = applyEdits(base, list.filter(([, kind]) => kind < 3));
    return checkCard(bent).valid ? render(bent as LiteCard, lang) : render(base, lang);
  });

const reply = fc.oneof({ arbitrary: written, weight: 5 }, { arbitrary: rendered, weight: 2 }, { arbitrary: hostileText, weight: 3 });

describe('fuzz: the card-reply reader', () => {
  it(
    'reads any reply into a well-formed card, and says what it could not find',
    () =>
      fuzzTarget('card-reply reader', () => {
        fc.assert(
          fc.property(reply, (text) => {
            const { type, card, found, missing } = parseCardReply(text);
            check(typeof type === 'string', 'the type is a string', type);
            check(card.protocol === PROTOCOL_VERSION && (FRAMEWORKS as readonly string[]).includes(card.agent.framework), 'protocol and framework are known', card);
            check(typeof card.agent.id === 'string' && typeof card.agent.name === 'string', 'id and name are strings', card);
            check((card.agent.id === '') === missing.includes('agent.id') && (card.agent.id !== '') === found.includes('agent.id'), 'agent.id is found or missing', { card, found, missing });
            check((card.agent.name === '') === missing.includes('agent.name') && (card.agent.name !== '') === found.includes('agent.name'), 'agent.name is found or missing', { card, found, missing });
            check((card.skills.length > 0) === found.includes('skills'), 'skills are found when there are some', { card, found });
            const ids = new Set<string>();
            for (const skill of card.skills) {
              check(skill.id !== '' && skill.name !== '' && typeof skill.description === 'string' && !ids.has(skill.id), 'a skill has an id, a name and a description, once', skill);
              ids.add(skill.id);
            }
            for (const value of Object.values(card.capabilities ?? {})) check(typeof value === 'boolean', 'capabilities are true or false', card.capabilities);
            for (const channel of card.channels ?? []) check(channel !== '', 'channels are not empty', card.channels);
            // What was read may still be no valid card (an id with a slash): the validator says so.
            const { valid, errors } = checkCard(card);
            check(valid === (errors.length === 0), 'the validator gives a verdict', errors);
          }),
          fuzzOptions(),
        );
      }),
    fuzzTimeout(500),
  );
});
