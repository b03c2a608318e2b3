/**
 * A copy of `base` with `extra`'s properties added or replaced: what `{ ...base, ...extra }`
 * means, for objects made once per message or request: each property written after a spread
 * would give the object a hidden class of its own (docs/performance.md#hidden-classes).
 */
export function withFields<B extends object, E extends object>(base: B, extra: E): Omit<B, keyof E> & E {
  return Object.assign({}, base, extra);
}
