// How deeply a JSON value nests, counted without recursion: deep input is refused before any
// recursive code (structuredClone, JSON.stringify) can overflow the stack on it.

/** The nesting depth of `value`, counting no further than `limit + 1`. */
export function jsonDepth(value: unknown, limit: number): number {
  let deepest = 0;
  // Two stacks side by side, so that walking a message allocates nothing per value.
  const items: unknown[] = [value];
  const depths: number[] = [0];
  while (items.length > 0) {
    const item = items.pop();
    const depth = depths.pop() as number;
    if (item === null || typeof item !== 'object') continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > limit) return deepest;
    if (Array.isArray(item)) {
      for (const child of item as unknown[]) {
        if (child !== null && typeof child === 'object') {
          items.push(child);
          depths.push(depth + 1);
        }
      }
    } else {
      // Own enumerable properties, as Object.values gives them.
      for (const key in item) {
        if (!Object.hasOwn(item, key)) continue;
        const child = (item as Record<string, unknown>)[key];
        if (child !== null && typeof child === 'object') {
          items.push(child);
          depths.push(depth + 1);
        }
      }
    }
  }
  return deepest;
}
