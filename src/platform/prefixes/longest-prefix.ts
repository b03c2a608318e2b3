/** A destination's digits: what prefixes are matched against ("+260 97…" and "26097…" alike). */
export function destinationDigits(recipient: string): string {
  return recipient.startsWith('+') ? recipient.slice(1) : recipient;
}

/**
 * Longest-prefix lookup over a map keyed by prefix. Prefixes are at most 16 digits, so a
 * lookup is at most 16 map probes, whatever the number of routes.
 */
export function longestPrefix<T>(map: Map<string, T>, digits: string, maxLength: number): T | undefined {
  for (let n = Math.min(maxLength, digits.length); n > 0; n--) {
    const hit = map.get(digits.slice(0, n));
    if (hit !== undefined) return hit;
  }
  return undefined;
}
