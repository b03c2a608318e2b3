import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package's own files that configure it: its version and the `.env` beside it. */

let packageVersion: string | undefined;
/** The package's version, from its package.json. */
export function readVersion(): string {
  if (packageVersion) return packageVersion;
  // The compiled file lives one level deeper (dist/src/config) than the source (src/config).
  for (const rel of ['../../package.json', '../../../package.json']) {
    const url = new URL(rel, import.meta.url);
    if (existsSync(url)) {
      packageVersion = (JSON.parse(readFileSync(url, 'utf8')) as { version: string }).version;
      return packageVersion;
    }
  }
  return '0.0.0';
}

let dotenvLoaded = false;
let dotenvPath: string | undefined;

/** The package root: the compiled file is one level deeper (dist/src/config) than the source. */
function packageRoot(): string | undefined {
  for (const rel of ['../../', '../../../']) {
    const url = new URL(rel, import.meta.url);
    if (existsSync(new URL('package.json', url))) return fileURLToPath(url);
  }
  return undefined;
}

/**
 * Reads one `.env` once: the current directory's, else the package root's, so the CLI sees
 * the same settings from any directory. Variables already set in the environment win.
 */
export function loadDotenv(): void {
  if (dotenvLoaded) return;
  dotenvLoaded = true;
  const root = packageRoot();
  const candidates = [resolve('.env'), ...(root ? [join(root, '.env')] : [])];
  dotenvPath = candidates.find((f) => existsSync(f));
  if (dotenvPath) process.loadEnvFile(dotenvPath);
}

/** The `.env` file that was read, if any. */
export function dotenvFile(): string | undefined {
  return dotenvPath;
}
