/** The UTC day a charge counts toward, as the DATE column stores it. */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}
