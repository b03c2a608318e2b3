import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString, MaxLength } from 'class-validator';

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
}
