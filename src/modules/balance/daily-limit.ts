const DAY_MS = 86_400_000;
/** The last day asked for: nearly every send of a day asks for the same one. */
let lastDay = NaN;
let lastText = '';

/** The UTC day a charge counts toward, as the DATE column stores it. */
export function utcDay(at: Date): string {
  const day = Math.floor(at.getTime() / DAY_MS);
  if (day !== lastDay) {
    lastText = at.toISOString().slice(0, 10);
    lastDay = day;
  }
  return lastText;
}
