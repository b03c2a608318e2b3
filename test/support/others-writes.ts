/**
 * Others writing beside a prune: up to 2,500 rows a second into a table of their own
 * (`pace_writes`, made here) on the same server, until `stop` resolves.
 */
export async function othersWrite(
  query: (sql: string) => Promise<unknown>,
): Promise<{ stop(): Promise<void> }> {
  await query('CREATE TABLE pace_writes (id INT AUTO_INCREMENT PRIMARY KEY, at DATETIME(3))');
  let writing = true;
  const writer = (async () => {
    while (writing) {
      // 25 rows a statement: even a machine slowed tenfold writes far more than a quiet threshold of 100.
      await query(`INSERT INTO pace_writes (at) VALUES ${Array(25).fill('(NOW(3))').join(', ')}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  return {
    stop: async () => {
      writing = false;
      await writer;
    },
  };
}
