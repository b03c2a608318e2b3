import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { API_REFERENCE, SEND_AT_DOC } from '../../send-response.docs.js';
import { toNumber } from '../../../../platform/money/money.js';
import type { SendOutcome } from '../../send.types.js';

/** The chat route's answer: its OpenAPI shape and the mapper from the pipeline's outcome. */

export class RejectedRecipientDto {
  @ApiProperty({ example: '0971234567' }) recipient: string;
  @ApiProperty({ example: 'INVALID_NUMBER' }) reason: string;
}

export class WindowScheduledDto {
  @ApiProperty({ example: '12125550123' }) recipient: string;
  @ApiProperty({ format: 'date-time', example: '2026-12-01T13:00:00.000Z' }) send_at: string;
}

export class ChatSendResponseDto {
  @ApiProperty({ example: 0.2 }) cost: number;
  @ApiProperty({ example: 2, type: 'integer', description: 'messages queued' }) count: number;
  @ApiProperty({ example: 'ZMW' }) currency: string;
  @ApiProperty({ example: '2025-11-26T19:15:30.000Z', format: 'date-time' }) estimated_delivery: string;
  @ApiProperty({ example: 'Chat messages queued successfully' }) message: string;
  @ApiProperty({ example: API_REFERENCE }) reference: string;
  @ApiProperty({ example: 'success' }) status: string;
  @ApiPropertyOptional({
    type: [RejectedRecipientDto],
    description: 'present only when some recipients were invalid',
  })
  rejected?: RejectedRecipientDto[];
  @ApiPropertyOptional({
    type: [WindowScheduledDto],
    description:
      "present only when a send window deferred some recipients: each with its send_at, the window's next opening in UTC",
  })
  scheduled?: WindowScheduledDto[];
  @ApiPropertyOptional(SEND_AT_DOC) send_at?: string;
}

/**
 * `count` is the messages queued (accepted recipients only). Invalid recipients are
 * not sent, counted or charged; since this answer has no per-recipient list,
 * they are named in `rejected: [{recipient, reason}]`, present only when there are any so a
 * clean request gets exactly the documented shape.
 */
export function chatResponse(o: SendOutcome, estimatedDelivery: string) {
  const rejected = o.entries
    .filter((e) => e.status === 'REJECTED')
    .map((e) => ({ recipient: e.recipient, reason: e.reason ?? 'INVALID_NUMBER' }));
  // No per-recipient list here either: those a send window deferred are named with their send_at.
  const scheduled = o.entries.flatMap((e) =>
    e.sendAt ? [{ recipient: e.recipient, send_at: e.sendAt.toISOString() }] : [],
  );
  return {
    cost: toNumber(o.cost),
    count: o.acceptedCount,
    currency: o.currency,
    estimated_delivery: estimatedDelivery,
    message: 'Chat messages queued successfully',
    reference: o.apiReference,
    status: 'success',
    ...(rejected.length ? { rejected } : {}),
    ...(scheduled.length ? { scheduled } : {}),
    ...(o.sendAt ? { send_at: o.sendAt } : {}),
  };
}
