import { ApiProperty } from '@nestjs/swagger';
import { API_REFERENCE_EXAMPLE as API_REFERENCE } from '../../messages/message-response.dto.js';

/** The answers of the cancel and reschedule routes. */

export class CancelResponseDto {
  @ApiProperty({ example: API_REFERENCE }) api_reference: string;
  @ApiProperty({ example: 2, type: 'integer', description: 'messages this call cancelled (and refunded)' })
  cancelled: number;
  @ApiProperty({
    example: 1,
    type: 'integer',
    description:
      'accepted messages this call did not cancel: already handed to a provider, being handed over, or already final',
  })
  not_cancelled: number;
  @ApiProperty({ example: 0.5, description: 'the amount given back by this call' }) refunded: number;
  @ApiProperty({ example: 'ZMW' }) currency: string;
}

export class RescheduleResponseDto {
  @ApiProperty({ example: API_REFERENCE }) api_reference: string;
  @ApiProperty({ example: 3, type: 'integer', description: 'messages moved (those still SCHEDULED)' })
  rescheduled: number;
  @ApiProperty({
    example: '2026-12-01T09:00:00.000Z',
    format: 'date-time',
    description: 'when they now go (ISO 8601 UTC); now when the asked time is past or under 5 s ahead',
  })
  send_at: string;
}
