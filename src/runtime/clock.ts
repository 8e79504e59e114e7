// The timestamps of status changes. Formatting a Date is a measurable part of a short request,
// and the ISO text changes only once a millisecond, so the default clock reuses it.

/** A clock that gives the current time as ISO text, formatted at most once a millisecond. */
export function isoClock(): () => string {
  let lastMs = Number.NaN;
  let lastIso = '';
  return () => {
    const ms = Date.now();
    if (ms !== lastMs) {
      lastMs = ms;
      lastIso = new Date(ms).toISOString();
    }
    return lastIso;
  };
}
