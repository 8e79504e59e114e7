// Store bookkeeping for store tests: each test opens the stores it needs, and every one still
// open is closed after that test, whether it passed or not.
import { afterEach } from 'vitest';

export interface TestStores<A extends unknown[], S> {
  /** Opens a store; it is closed after the test unless closed here first. */
  open(...args: A): Promise<S>;
  /** Closes a store before the test ends, to reopen its file, say. */
  close(store: S): Promise<void>;
}

/**
 * Opens stores with `open` for the tests of the enclosing `describe` (or file), and closes after
 * each test, newest first, those it left open.
 *
 * @example
 * const stores = withStores((path: string) => openSqliteTaskStore(path));
 * it('survives a reopen', async () => {
 *   const first = await stores.open(path);
 *   await stores.close(first);
 *   const second = await stores.open(path);
 * });
 */
export function withStores<A extends unknown[], S extends { close(): Promise<void> }>(open: (...args: A) => Promise<S> | S): TestStores<A, S> {
  const opened: S[] = [];
  afterEach(async () => {
    while (opened.length > 0) await opened.pop()?.close();
  });
  return {
    async open(...args) {
      const store = await open(...args);
      opened.push(store);
      return store;
    },
    async close(store) {
      const at = opened.indexOf(store);
      if (at !== -1) opened.splice(at, 1);
      await store.close();
    },
  };
}
