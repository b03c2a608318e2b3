/**
 * Values believed for `ttlMs` after they were read, with one read in flight per key: under
 * load, every caller that arrives while a value is being read would otherwise read it too.
 * `peek` answers a fresh value without a promise, for the request path
 * (docs/performance.md#promises).
 * Bounded: past `maxEntries` the whole map is dropped and refilled on demand.
 */
export class TtlCache<V> {
  private readonly values = new Map<string, { value: V; until: number }>();
  private readonly reads = new Map<string, Promise<V>>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
  ) {}

  /** The value if it is fresh, else undefined (nothing is read). */
  peek(key: string): V | undefined {
    const hit = this.values.get(key);
    return hit && hit.until > Date.now() ? hit.value : undefined;
  }

  /** The fresh value, or the one `read` answers (shared with any read of the key already under way). */
  get(key: string, read: () => Promise<V>): Promise<V> {
    const hit = this.peek(key);
    if (hit !== undefined) return Promise.resolve(hit);
    const pending = this.reads.get(key);
    if (pending) return pending;
    const reading: Promise<V> = read()
      .then((value) => {
        // Not kept when the key was deleted while it was being read: it may predate the change.
        if (this.reads.get(key) !== reading) return value;
        if (this.values.size >= this.maxEntries) this.values.clear();
        this.values.set(key, { value, until: Date.now() + this.ttlMs });
        return value;
      })
      .finally(() => {
        if (this.reads.get(key) === reading) this.reads.delete(key);
      });
    this.reads.set(key, reading);
    return reading;
  }

  /** Forgets the key, and any read of it under way, so the next get reads anew. */
  delete(key: string): void {
    this.values.delete(key);
    this.reads.delete(key);
  }
}
