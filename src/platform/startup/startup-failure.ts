import type { AppConfig } from '../../config/config.js';
import { errorText } from './error-text.js';

/** One line for why a process could not start, naming the setting to change where there is one. */
export function startupFailure(err: unknown, config: AppConfig): string {
  const e = err as { code?: string; syscall?: string } | null;
  if (e?.syscall === 'listen' && e.code === 'EADDRINUSE') {
    return `PORT=${config.port} is already in use (EADDRINUSE): stop the process holding it, or set PORT to a free port`;
  }
  if (e?.syscall === 'listen' && e.code === 'EACCES') {
    return `PORT=${config.port} may not be opened by this user (EACCES): set PORT to 1024 or above`;
  }
  return errorText(err);
}
