import { ApiProperty } from '@nestjs/swagger';
import { MESSAGE_STATUSES } from '../messages/channel.js';

const API_REFERENCE = '1764184470578998353';

export class RequestCountsDto {
  @ApiProperty({ example: 0, type: 'integer' }) ACKNOWLEDGED: number;
  @ApiProperty({ example: 0, type: 'integer' }) SENT: number;
  @ApiProperty({ example: 2, type: 'integer' }) DELIVERED: number;
  @ApiProperty({ example: 1, type: 'integer' }) UNDELIVERED: number;
  @ApiProperty({ example: 0, type: 'integer' }) EXPIRED: number;
  @ApiProperty({ example: 0, type: 'integer' }) FAILED: number;
  @ApiProperty({ example: 1, type: 'integer' }) REJECTED: number;
}

export class RequestSummaryDto {
  @ApiProperty({ example: API_REFERENCE }) api_reference: string;
  @ApiProperty({ enum: ['sms', 'email', 'chat'], example: 'sms' }) channel: string;
  @ApiProperty({ example: '2025-11-26T19:14:30.578Z', format: 'date-time' }) created_at: string;
  @ApiProperty({
    nullable: true,
    type: 'string',
    format: 'date-time',
    example: null,
    description: 'when the request is to be sent; null when it was sent on acceptance',
  })
  send_at: string | null;
  @ApiProperty({
    type: RequestCountsDto,
    description: `messages in each state (every state is listed): ${MESSAGE_STATUSES.join(', ')}`,
  })
  counts: RequestCountsDto;
  @ApiProperty({ example: 3, type: 'integer', description: 'units charged, all messages together' })
  units: number;
  @ApiProperty({ example: 0.75, description: 'what the request was charged' })
  cost: number;
  @ApiProperty({ example: 0, description: 'what has been refunded since (failed messages)' })
  refunded: number;
  @ApiProperty({ example: 'ZMW' }) currency: string;
}
