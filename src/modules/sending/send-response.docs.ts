import { API_REFERENCE_EXAMPLE } from '../messages/message-response.dto.js';

/** OpenAPI snippets every channel's send answer shares. */

export const API_REFERENCE = API_REFERENCE_EXAMPLE;

export const SEND_AT_DOC = {
  format: 'date-time',
  example: '2026-12-01T09:00:00.000Z',
  description: 'present only for a scheduled send: when it goes, ISO 8601 UTC with milliseconds',
};

/** A recipient's own send_at, set when a send window deferred it. */
export const WINDOW_SEND_AT_DOC = {
  format: 'date-time',
  example: '2026-12-01T06:00:00.000Z',
  description:
    "present when a send window deferred this recipient (SCHEDULED): its window's next opening, in UTC",
};
