/** Things in progress (runs, responses), with a promise for the moment none is left. */
export class PendingSet<T> implements Iterable<T> {
  private readonly items = new Set<T>();
  private waiters: (() => void)[] = [];

  get size(): number {
    return this.items.size;
  }

  add(item: T): void {
    this.items.add(item);
  }

  /** Removes `item`; the last one out resolves every {@link idle} promise. Returns whether it was there. */
  delete(item: T): boolean {
    if (!this.items.delete(item)) return false;
    if (this.items.size === 0) {
      const waiters = this.waiters;
      this.waiters = [];
      for (const resolve of waiters) resolve();
    }
    return true;
  }

  /** Resolves once nothing is left (at once when nothing is there now). */
  idle(): Promise<void> {
    if (this.items.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  [Symbol.iterator](): Iterator<T> {
    return this.items[Symbol.iterator]();
  }
}
