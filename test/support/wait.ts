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

/**
 * Polls until `check` returns a truthy value (returned), for as long as `progress` keeps rising:
 * fails once it has not risen for `stallMs`, or after `maxMs` in all. For work whose pace
 * depends on the machine's load (thousands of callbacks), where the rule is that it ends, not
 * how fast.
 */
export async function waitWhileProgressing<T>(
  check: () => Promise<T | undefined | null | false>,
  progress: () => number,
  opts: { stallMs: number; maxMs: number; what: string },
): Promise<T> {
  const started = Date.now();
  let best = progress();
  let lastRise = started;
  for (;;) {
    const v = await check();
    if (v) return v;
    const now = Date.now();
    const p = progress();
    if (p > best) {
      best = p;
      lastRise = now;
    }
    if (now - lastRise > opts.stallMs || now - started > opts.maxMs)
      throw new Error(
        `waiting for ${opts.what}: ${now - lastRise > opts.stallMs ? `no progress for ${opts.stallMs} ms` : `not done after ${opts.maxMs} ms`} (progress ${best})`,
      );
    await new Promise((r) => setTimeout(r, 100));
  }
}
