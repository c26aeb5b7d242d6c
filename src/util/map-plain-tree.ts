/**
 * Rewrites the strings inside a tree of plain objects and arrays (e.g. a run event) without copying
 * what does not change: the secret scrubber and the terminal-text escaper both walk events this way,
 * and a clean event must cost no copy. Class instances (Dates, Buffers, errors) are left as they are.
 * Cycles and shared nodes are visited once, so a self-referencing value cannot loop.
 */
export function mapPlainTree(
  value: unknown,
  mapString: (text: string) => string,
  /** Rebuilds one plain object from its entries; `visit` maps a child. Returns `node` when nothing changed. */
  mapObject: (node: object, visit: (child: unknown) => unknown) => object,
): unknown {
  const seen = new WeakMap<object, unknown>();
  const visit = (node: unknown): unknown => {
    if (typeof node === 'string') return mapString(node);
    if (typeof node !== 'object' || node === null) return node;
    const done = seen.get(node);
    if (done !== undefined) return done;
    // Until it is finished, a node stands for itself: a cycle back to it ends there.
    seen.set(node, node);
    let result: unknown = node;
    if (Array.isArray(node)) {
      let copy: unknown[] | null = null;
      node.forEach((item, i) => {
        const next = visit(item);
        if (next !== item) (copy ??= [...node])[i] = next;
      });
      result = copy ?? node;
    } else {
      const prototype: unknown = Object.getPrototypeOf(node);
      if (prototype !== Object.prototype && prototype !== null) return node;
      result = mapObject(node, visit);
    }
    seen.set(node, result);
    return result;
  };
  return visit(value);
}
