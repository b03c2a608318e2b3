import type { AppConfig } from '../../../config/config.js';

/**
 * The Redis channel on which a process that wrote outbox rows names their credentials, so that
 * the API processes holding receivers of them claim the rows at once (each also looks every
 * OUTBOX_POLL_MS, for rows written where Redis was not at hand, and for retries coming due).
 */
export function outboxWakeChannel(config: AppConfig): string {
  return `${config.queuePrefix}:smpp-outbox:wake`;
}

export const OUTBOX_POLL_MS = 2000;
