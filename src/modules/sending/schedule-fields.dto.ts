import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString, MaxLength } from 'class-validator';
import { PassThrough } from '../../platform/validation/pass-through.js';

/** The scheduling fields every JSON send body takes; their rules are checked in schedule.ts, for XML too. */
export class ScheduleFieldsDto {
  @ApiPropertyOptional({
    description:
      'When to send: ISO 8601 with Z or an offset. In the past or under 5 s ahead: sent now; at most 35 days ahead. The messages are charged at once and answered SCHEDULED.',
    example: '2026-12-01T09:00:00Z',
    format: 'date-time',
    maxLength: 40,
  })
  @IsOptional()
  @IsString()
  @MaxLength(40)
  send_at?: string;

  @ApiPropertyOptional({
    description:
      'Seconds (60-604800) the messages may wait to be handed to a provider, counted from the later of send_at and acceptance; then they end EXPIRED, VALIDITY_PERIOD_ELAPSED, refunded. Default DEFAULT_VALIDITY_PERIOD (48 h).',
    example: 3600,
    type: 'integer',
    minimum: 60,
    maximum: 604800,
  })
  @IsOptional()
  @IsInt({ message: 'validity_period must be a whole number of seconds' })
  validity_period?: number;

  @ApiPropertyOptional({
    type: 'object',
    required: ['from', 'to'],
    additionalProperties: false,
    properties: {
      from: { type: 'string', pattern: '^([01]\\d|2[0-3]):[0-5]\\d$', example: '08:00' },
      to: { type: 'string', pattern: '^([01]\\d|2[0-3]):[0-5]\\d$', example: '20:00' },
      days: {
        type: 'array',
        items: { type: 'string', enum: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] },
        example: ['mon', 'tue', 'wed', 'thu', 'fri'],
      },
    },
    description:
      "When the messages may go out, in each recipient's local time (a number: its country's zone, by calling code; an e-mail address: the account's zone). Replaces the account's window for this request. `from` later than `to` spans midnight; `days` default to every day. A recipient whose window is closed at send_at (or now) is answered SCHEDULED with its own send_at, the window's next opening in UTC.",
    example: { from: '08:00', to: '20:00', days: ['mon', 'tue', 'wed', 'thu', 'fri'] },
  })
  // Checked by the send pipeline (messages/windows/send-window.ts), which names each bad field.
  @PassThrough()
  send_window?: Record<string, unknown>;
}
