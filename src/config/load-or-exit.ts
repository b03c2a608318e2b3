import { ConfigError, loadConfig, type AppConfig } from './config.js';

/** For entry points: a bad variable stops the process with a message naming it. */
export function loadConfigOrExit(overrides: Record<string, string | undefined> = {}): AppConfig {
  try {
    return loadConfig(overrides);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
}
