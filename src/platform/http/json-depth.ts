/**
 * The nesting depth of a parsed JSON value, counted in containers: a scalar is 0, `{}` and
 * `[1]` are 1, `{"a":{"b":1}}` is 2. Walks with an explicit stack, never recursion, and stops
 * as soon as `limit` is passed, so a 10,000-level document costs `limit` steps down one branch
 * rather than a stack overflow. Returns `limit + 1` for anything deeper than `limit`.
 */
export function jsonDepth(value: unknown, limit: number): number {
  if (value === null || typeof value !== 'object') return 0;
  let max = 0;
  const stack: Array<[object, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (depth > max) max = depth;
    if (max > limit) return limit + 1;
    // JSON.parse only builds plain objects and arrays; Object.values reads own enumerable
    // values, including a key literally named "__proto__".
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (child !== null && typeof child === 'object') stack.push([child as object, depth + 1]);
    }
  }
  return max;
}
