/**
 * Waits for `work` at most `ms`: true when it settled successfully in time, false when the time
 * ran out first (the work goes on; its result is then ignored). A rejection is passed on.
 */
export async function within(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), ms);
  });
  try {
    return (await Promise.race([work, late])) !== 'late';
  } finally {
    clearTimeout(timer);
  }
}
