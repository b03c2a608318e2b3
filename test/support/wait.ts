/** Polls until `check` returns a truthy value (returned), or fails after `ms`. */
export async function waitFor<T>(
  check: () => Promise<T | undefined | null | false>,
  ms = 15_000,
  what = 'condition',
): Promise<T> {
  const until = Date.now() + ms;
  let last: unknown;
  while (Date.now() < until) {
    try {
      const v = await check();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out after ${ms} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}
