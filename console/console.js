// The hub console: follows the hub's live feed (GET /hub/v1/events, server-sent events read
// through fetch so that the token can travel in a header) and shows the agents and the tasks
// passing through the hub. Everything from the hub is put on the page as text, never as HTML:
// agent names, skills and task words come from peers and may be hostile.
import { limitsPanel } from './limits.js';

const API = new URL('../hub/v1/', location.href);
const TOKEN_KEY = 'a2a-lite-hub-token';
const EVENTS_PER_TASK = 200;
const TASKS_SHOWN = 300;

const agents = new Map(); // id → the hub's view of the agent
const tasks = new Map(); // "agent/task" → { seen, lite: [], raw: [] }
let lastEventId;

const $ = (id) => document.getElementById(id);
const limits = limitsPanel({ api: API, authHeaders, el, $ });

/** An element with a class and text; the only way data reaches the page. */
function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

// ---- the token -------------------------------------------------------------------------

function takeTokenFromFragment() {
  const match = /(?:^#|&)token=([^&]*)/.exec(location.hash);
  if (match) {
    sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(match[1]));
    history.replaceState(null, '', location.pathname + location.search);
  }
}

function authHeaders() {
  const token = sessionStorage.getItem(TOKEN_KEY);
  return token ? { authorization: `Bearer ${token}` } : {};
}

function askForToken(why) {
  $('login-why').textContent = why;
  $('login').hidden = false;
  $('token').focus();
}

$('login').addEventListener('submit', (event) => {
  event.preventDefault();
  sessionStorage.setItem(TOKEN_KEY, $('token').value);
  $('token').value = '';
  $('login').hidden = true;
  follow();
  void limits.read();
});

// ---- the live feed ---------------------------------------------------------------------

function setFeed(state, words) {
  const feed = $('feed');
  feed.className = `feed ${state}`;
  feed.textContent = words;
}

let retryMs = 1000;
let following = false;

/** Reads the feed until it ends, then comes back with Last-Event-ID after a pause. */
async function follow() {
  if (following) return;
  following = true;
  try {
    const headers = { accept: 'text/event-stream', ...authHeaders() };
    if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
    const response = await fetch(new URL('events', API), { headers, cache: 'no-store' });
    if (response.status === 401 || response.status === 403) {
      setFeed('refused', 'token needed');
      askForToken(response.status === 401 ? 'This hub asks for a token.' : 'This token may not watch the hub.');
      return;
    }
    if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
    setFeed('live', 'live');
    retryMs = 1000;
    await readEvents(response.body);
    setFeed('lost', 'reconnecting…');
  } catch {
    setFeed('lost', 'reconnecting…');
  } finally {
    following = false;
  }
  setTimeout(follow, retryMs);
  retryMs = Math.min(retryMs * 2, 15000);
}

async function readEvents(body) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value.replace(/\r\n?/g, '\n');
    let end;
    while ((end = buffer.indexOf('\n\n')) !== -1) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      dispatch(block);
    }
  }
}

function dispatch(block) {
  let type = 'message';
  let id;
  const data = [];
  for (const line of block.split('\n')) {
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') type = value;
    else if (field === 'data') data.push(value);
    else if (field === 'id') id = value;
  }
  if (id !== undefined) lastEventId = id;
  if (data.length === 0) return;
  let payload;
  try {
    payload = JSON.parse(data.join('\n'));
  } catch {
    return;
  }
  handle(type, payload);
}

function handle(type, payload) {
  if (type === 'snapshot') {
    agents.clear();
    for (const agent of payload.agents ?? []) agents.set(agent.id, agent);
    for (const seen of [...(payload.tasks ?? [])].reverse()) noteTask(seen);
    $('agents').replaceChildren();
    for (const agent of agents.values()) showAgent(agent);
  } else if (type === 'agent.registered') {
    void loadAgent(payload.agentId);
  } else if (type === 'agent.removed') {
    agents.delete(payload.agentId);
    document.querySelector(`[data-agent="${CSS.escape(payload.agentId)}"]`)?.remove();
  } else if (type === 'agent.health') {
    const agent = agents.get(payload.agentId);
    if (agent) {
      agent.health = payload.health;
      showAgent(agent);
    } else void loadAgent(payload.agentId);
  } else if (type === 'task') {
    noteTask(payload.task, payload);
  }
  counts();
}

async function loadAgent(id) {
  try {
    const response = await fetch(new URL(`agents/${encodeURIComponent(id)}`, API), { headers: authHeaders(), cache: 'no-store' });
    if (!response.ok) return;
    const { agent } = await response.json();
    agents.set(agent.id, agent);
    showAgent(agent);
    counts();
  } catch {
    // The next health event tries again.
  }
}

// ---- agents ----------------------------------------------------------------------------

function showAgent(agent) {
  let item = document.querySelector(`[data-agent="${CSS.escape(agent.id)}"]`);
  if (!item) {
    item = el('li', 'agent');
    item.dataset.agent = agent.id;
    $('agents').append(item);
  }
  const health = agent.health ?? { up: false, activeTasks: 0, failures: 0 };
  item.classList.toggle('down', !health.up);
  item.classList.toggle('up', health.up);
  const head = el('div', 'agent-head');
  head.append(el('span', 'health', health.up ? 'up' : 'down'), el('span', 'name', agent.name || agent.id), el('code', 'id', agent.id));
  if (agent.version) head.append(el('span', 'version', `v${agent.version}`));
  if (agent.kind === 'connected') head.append(el('span', 'kind', 'via hub connection'));
  head.append(signatureBadge(agent.signature));
  const skills = el('div', 'skills');
  for (const skill of agent.skills ?? []) {
    const chip = el('span', 'skill', skill.id);
    if (skill.name && skill.name !== skill.id) chip.title = skill.name;
    skills.append(chip);
  }
  const stats = el('dl', 'stats');
  const stat = (name, value, className) => {
    const row = el('div', className);
    row.append(el('dt', '', name), el('dd', '', value));
    stats.append(row);
  };
  stat('load', `${health.activeTasks ?? 0} active`, 'load');
  stat('latency', health.latencyMs === undefined ? '—' : `${Math.round(health.latencyMs)} ms`, 'latency');
  stat('seen', ago(health.lastSeen), 'seen');
  stat('failures', String(health.failures ?? 0), 'failures');
  const parts = [head, skills, stats];
  if (!health.up && health.reason) parts.push(el('p', 'reason', health.reason));
  // Why a signed card does not verify, in words on the page: a phone shows no title on hover.
  const signature = agent.signature;
  if (signature?.signed && !signature.verified && signature.problem) parts.push(el('p', 'signature-problem', `card signature: ${signature.problem}`));
  item.replaceChildren(...parts);
  item.querySelector('.seen dd').dataset.time = health.lastSeen ?? '';
}

/** Whether the agent's card is signed, and verified against a key the hub trusts (A2A §8.4). */
function signatureBadge(signature) {
  const verified = signature?.verified === true;
  const signed = signature?.signed === true;
  const badge = el('span', `signature ${verified ? 'verified' : signed ? 'unverified' : 'unsigned'}`, verified ? 'signed ✓' : signed ? 'signed, not verified' : 'unsigned');
  const key = signature?.kid ? `key ${signature.kid}${signature.alg ? ` (${signature.alg})` : ''}` : '';
  badge.title = verified ? `card signed by ${key}, verified` : [key, signature?.problem ?? ''].filter(Boolean).join(': ');
  return badge;
}

function ago(iso) {
  if (!iso) return 'never';
  const seconds = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  if (seconds < 60) return `${seconds} s ago`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`;
  return new Date(iso).toLocaleString();
}

setInterval(() => {
  for (const dd of document.querySelectorAll('.seen dd')) if (dd.dataset.time) dd.textContent = ago(dd.dataset.time);
}, 1000);

// ---- tasks -----------------------------------------------------------------------------

/** Records what the hub saw of a task (and the event that said it), and shows it. */
function noteTask(seen, payload) {
  const key = `${seen.agentId}/${seen.taskId}`;
  const entry = tasks.get(key) ?? { seen, lite: [], raw: [] };
  entry.seen = seen;
  if (payload?.lite) keepLast(entry.lite, payload.lite);
  if (payload?.event !== undefined) keepLast(entry.raw, JSON.stringify(payload.event, null, 2));
  tasks.delete(key);
  tasks.set(key, entry);
  if (tasks.size > TASKS_SHOWN) {
    const oldest = tasks.keys().next().value;
    tasks.delete(oldest);
    document.querySelector(`[data-task="${CSS.escape(oldest)}"]`)?.remove();
  }
  showTask(key, entry);
}

function keepLast(list, value) {
  if (list.at(-1) === value) return;
  list.push(value);
  if (list.length > EVENTS_PER_TASK) list.shift();
}

function showTask(key, { seen, lite, raw }) {
  let item = document.querySelector(`[data-task="${CSS.escape(key)}"]`);
  if (!item) {
    item = el('li', 'task');
    item.dataset.task = key;
    const details = el('details');
    const summary = el('summary');
    const head = el('div', 'task-head');
    head.append(el('span', 'agent-name'), el('code', 'id'), el('span', 'state'), el('span', 'percent'));
    const bar = el('div', 'bar');
    bar.setAttribute('role', 'progressbar');
    bar.setAttribute('aria-valuemin', '0');
    bar.setAttribute('aria-valuemax', '100');
    bar.append(el('span'));
    summary.append(head, bar, el('p', 'words'));
    const rawBox = el('details', 'raw-events');
    rawBox.append(el('summary', '', 'raw events'), el('pre', 'raw'));
    details.append(summary, el('pre', 'transcript'), rawBox);
    item.append(details);
  }
  // Newest first.
  $('tasks').prepend(item);
  const state = seen.state ?? 'unknown';
  item.className = `task state-${state.toLowerCase().replace(/^task_state_/, '').replace(/_/g, '-')}`;
  const agent = agents.get(seen.agentId);
  item.querySelector('.agent-name').textContent = agent?.name || seen.agentId;
  item.querySelector('.id').textContent = seen.taskId;
  item.querySelector('.state').textContent = state;
  const done = state === 'completed';
  const progress = done ? 100 : typeof seen.progress === 'number' ? Math.max(0, Math.min(100, seen.progress)) : undefined;
  item.querySelector('.percent').textContent = progress === undefined ? '' : `${Math.round(progress)}%`;
  const bar = item.querySelector('.bar');
  bar.setAttribute('aria-valuenow', String(progress ?? 0));
  bar.firstChild.style.width = `${progress ?? 0}%`;
  item.querySelector('.words').textContent = seen.text ?? '';
  item.querySelector('.transcript').textContent = lite.length > 0 ? lite.join('\n\n') : '(no A2A-Lite text yet)';
  item.querySelector('.raw').textContent = raw.join('\n\n');
  item.querySelector('.raw-events > summary').textContent = `raw events (${raw.length})`;
}

function counts() {
  const up = [...agents.values()].filter((a) => a.health?.up).length;
  $('agent-count').textContent = agents.size === 0 ? '' : `${up} up of ${agents.size}`;
  $('no-agents').hidden = agents.size > 0;
  $('task-count').textContent = tasks.size === 0 ? '' : String(tasks.size);
  $('no-tasks').hidden = tasks.size > 0;
}

takeTokenFromFragment();
counts();
void follow();
limits.watch();
