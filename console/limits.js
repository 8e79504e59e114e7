// The hub console's list of limited callers: who the hub refused for being over a limit (GET
// /hub/v1/limits: a principal's name or an address, never a token), which limit, how often and
// when last, and the limits in force. As in console.js, everything from the hub is put as text.

/** A rate of the hub's, in the words of its flags (20/s, 600/m, 5000/h) with its burst. */
function rateWords({ perSecond, burst }) {
  const [count, unit] = perSecond >= 1 ? [perSecond, 's'] : perSecond * 60 >= 1 ? [perSecond * 60, 'm'] : [perSecond * 3600, 'h'];
  return `${Number(count.toPrecision(3))}/${unit} (burst ${burst})`;
}

/** The limits in force (`limits` of GET /hub/v1/limits), in a line. */
function limitsWords(limits) {
  const words = [];
  if (limits.rate) words.push(`${rateWords(limits.rate)} a principal`);
  if (limits.addressRate) words.push(`${rateWords(limits.addressRate)} an address without a token`);
  if (limits.maxStreams !== undefined) words.push(`${limits.maxStreams} open streams a caller`);
  if (limits.maxTasks !== undefined) words.push(`${limits.maxTasks} running tasks a caller`);
  return words.length === 0 ? 'No limits per caller are set on this hub.' : `Limits: ${words.join('; ')}.`;
}

/**
 * The panel, drawn with the page's `el` (text only) into its elements (`$`): `read` fetches the
 * list once, `watch` every 10 s.
 */
export function limitsPanel({ api, authHeaders, el, $ }) {
  /** One caller refused for being over a limit: who (a principal's name or an address), which limit, how often, when last. */
  function limitedRow(entry) {
    const row = el('li', `limited by-${entry.by}`);
    row.dataset.caller = `${entry.by}:${entry.caller}`;
    row.append(el('span', 'by', entry.by), ' ', el('code', 'caller', entry.caller), ' ', el('span', 'kind', entry.kind), el('span', 'hits', `, refused ${entry.hits}× (last ${new Date(entry.lastAt).toLocaleTimeString()})`));
    return row;
  }

  /** The callers the hub refused for being over their limits (GET /hub/v1/limits), and the limits. */
  async function read() {
    try {
      const response = await fetch(new URL('limits', api), { headers: authHeaders(), cache: 'no-store' });
      if (!response.ok) {
        // Not "nobody was limited": the page does not know.
        $('limits-in-force').textContent = '';
        $('limited').replaceChildren();
        $('limited-count').textContent = '';
        $('no-limited').textContent = response.status === 401 || response.status === 403 ? 'The limits need a token that may watch the hub.' : `The hub did not give its limits (HTTP ${response.status}).`;
        $('no-limited').hidden = false;
        return;
      }
      const { limits = {}, limited = [] } = await response.json();
      $('limits-in-force').textContent = limitsWords(limits);
      const rows = limited.slice(-50).reverse().map(limitedRow);
      $('limited').replaceChildren(...rows);
      $('limited-count').textContent = rows.length === 0 ? '' : String(limited.length);
      $('no-limited').textContent = 'No caller has been over its limits.';
      $('no-limited').hidden = rows.length > 0;
    } catch {
      // The feed says when the hub is away; this list waits for the next round.
    }
  }

  /** Every 10 s; `read` also at once when a token is given. */
  async function watch() {
    await read();
    setTimeout(watch, 10000);
  }

  return { read, watch: () => void watch() };
}
