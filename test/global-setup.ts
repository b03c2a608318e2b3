import { existsSync } from 'node:fs';
import { createConnection } from 'mysql2/promise';
import type { TestProject } from 'vitest/node';
import { createTemplate, dropTemplate } from './support/db-template.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The migrated databases suites copy theirs from (see support/db-template.ts). */
    dbTemplate: string;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Drops databases left by earlier runs that died, then migrates the template databases once
 * for the whole run. (`npm test` builds dist/ for the CLI tests first: pretest.)
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
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
  // Named after this process, so a parallel run keeps its own and the sweep above drops it
  // only once this run is gone.
  const template = `bmt_${process.pid}_template`;
  await dropTemplate(template);
  await createTemplate(template);
  project.provide('dbTemplate', template);
  return () => dropTemplate(template);
}
