// parse() throughput against a minimal regex parser producing the same four fields
// (type, params, body, attachments), measured in alternating rounds of the same run.
import { parse } from '../dist/protocol/parse.js';
import { CORPUS } from './corpus.mjs';

const HEADER = /^\[A2A:([a-z]+)((?:\s+[^\s=\]]+=(?:"(?:[^"\\]|\\.)*"|[^\s\]]*))*)\s*\]\n?/;
const PARAM = /([^\s=\]]+)=("(?:[^"\\]|\\.)*"|[^\s\]]*)/g;
const ATTACHMENT = /^\[(?:附件|attachment):\s*(.+?)\]$/gm;

/** The baseline: what a careful regex-only parser of canonical messages does. */
export function minimalParse(text) {
  const header = HEADER.exec(text);
  if (header === null) return { type: 'plain', params: {}, body: text.trim(), attachments: [] };
  const params = {};
  for (const [, key, raw] of header[2].matchAll(PARAM)) {
    params[key] = raw.startsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, '$1') : raw;
  }
  const attachments = [];
  const body = text
    .slice(header[0].length)
    .replace(ATTACHMENT, (_, names) => {
      attachments.push(...names.split(/[,，]\s*/));
      return '';
    })
    .trim();
  return { type: header[1], params, body, attachments };
}

function throughput(fn, ms) {
  let count = 0;
  let sink = 0;
  const end = performance.now() + ms;
  while (performance.now() < end) {
    for (let i = 0; i < 200; i += 1) sink += fn(CORPUS[i % CORPUS.length]).body.length;
    count += 200;
  }
  if (sink < 0) console.log(sink);
  return (count / ms) * 1000;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export function run({ rounds = 15, ms = 200 } = {}) {
  for (const text of CORPUS) {
    const ours = parse(text);
    const base = minimalParse(text);
    for (const key of ['type', 'params', 'body', 'attachments']) {
      if (JSON.stringify(ours[key]) !== JSON.stringify(base[key])) throw new Error(`parsers disagree on ${key} of ${JSON.stringify(text)}`);
    }
  }
  throughput(parse, 300);
  throughput(minimalParse, 300);
  const ours = [];
  const base = [];
  for (let round = 0; round < rounds; round += 1) {
    ours.push(throughput(parse, ms));
    base.push(throughput(minimalParse, ms));
  }
  const result = { ours: median(ours), baseline: median(base) };
  return { ...result, ratio: result.ours / result.baseline };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = run();
  console.log(`parse: ${Math.round(r.ours).toLocaleString('en')} msg/s; minimal regex parser: ${Math.round(r.baseline).toLocaleString('en')} msg/s; ratio ${r.ratio.toFixed(2)}`);
}
