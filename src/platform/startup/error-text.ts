/** The first line of an error's message (or its code): what an operator needs, without a stack or a SQL statement. */
export function errorText(err: unknown): string {
  const e = err as { code?: string; message?: string } | null;
  const message = (e?.message ?? String(err)).split('\n')[0].trim();
  return message || e?.code || 'unknown error';
}
