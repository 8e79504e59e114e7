// How deeply a JSON value nests, counted without recursion: deep input is refused before any
// recursive code (structuredClone, JSON.stringify) can overflow the stack on it.

/** The nesting depth of `value`, counting no further than `limit + 1`. */
export function jsonDepth(value: unknown, limit: number): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop() as [unknown, number];
    if (item === null || typeof item !== 'object') continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > limit) return deepest;
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return deepest;
}
