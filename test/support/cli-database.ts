import { runCli, type CliRun } from './cli-in-process.js';
import { MYSQL_ROOT, testEnv, uniqueName } from './test-env.js';

/**
 * The environment of a CLI suite on databases of its own. The log and notification databases
 * are named explicitly, so a .env in the working directory cannot point the CLI elsewhere.
 */
export function cliDatabaseEnv(name = uniqueName()): { name: string; env: Record<string, string> } {
  return {
    name,
    env: {
      PATH: process.env.PATH ?? '',
      ...testEnv(name),
      LOG_DATABASE_URL: `${MYSQL_ROOT}/${name}_log`,
      NOTIFICATION_DATABASE_URL: `${MYSQL_ROOT}/${name}_notification`,
    },
  };
}

/** Runs one command line (split on spaces) in process; `json` is its stdout parsed, when it is JSON. */
export function jsonCli(env: Record<string, string>) {
  return async (line: string): Promise<CliRun & { json: any }> => {
    const r = await runCli(env, line.split(/\s+/).filter(Boolean));
    let json: any;
    try {
      json = JSON.parse(r.stdout);
    } catch {
      json = undefined;
    }
    return { ...r, json };
  };
}
