import { existsSync } from 'node:fs';
import { createConnection } from 'mysql2/promise';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Drops databases left by earlier runs that died. (`npm test` builds dist/ for the CLI tests first: pretest.) */
export default async function setup(): Promise<void> {
  const conn = await createConnection({ host: '127.0.0.1', user: 'root' });
  try {
    const rows = (await conn.query("SHOW DATABASES LIKE 'bmt\\_%'"))[0] as Array<Record<string, string>>;
    for (const row of rows) {
      const db = Object.values(row)[0];
      const pid = Number(db.split('_')[1]);
      if (!alive(pid)) await conn.query(`DROP DATABASE IF EXISTS \`${db}\``);
    }
  } finally {
    await conn.end();
  }
  if (!existsSync('dist/cli.js'))
    console.warn('dist/cli.js is missing: run `npm run build` (npm test does) before the CLI tests');
}
