import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { API_REFERENCE, SEND_AT_DOC, WINDOW_SEND_AT_DOC } from '../../send-response.docs.js';
import type { SendOutcome } from '../../send.types.js';

/** The JSON SMS route's answer: its OpenAPI shape and the mapper from the pipeline's outcome. */

/** Whole-response example: an accepted recipient has no reason; only a REJECTED one does. */
export const SMS_SEND_EXAMPLE = {
  api_reference: API_REFERENCE,
  data: [
    {
      message_id: '01a200fe-0dfd-7511-ad60-13d93139bcee',
      mobile_number: '260971234567',
      status: 'ACKNOWLEDGED',
    },
    {
      message_id: '01a200fe-0dfd-7511-ad60-13d93139bcef',
      mobile_number: '0971234567',
      status: 'REJECTED',
      reason: 'INVALID_NUMBER',
    },
  ],
  message: 'successful',
  success: true,
};

export class SmsSendEntryDto {
  @ApiProperty({ example: '01a200fe-0dfd-7511-ad60-13d93139bcee', format: 'uuid' }) message_id: string;
  @ApiProperty({ example: '260971234567' }) mobile_number: string;
  @ApiProperty({ enum: ['ACKNOWLEDGED', 'SCHEDULED', 'REJECTED'], example: 'ACKNOWLEDGED' }) status: string;
  @ApiPropertyOptional({
    enum: ['INVALID_NUMBER', 'MISSING_VARIABLE', 'MESSAGE_TOO_LONG', 'COUNTRY_NOT_ALLOWED', 'PREMIUM_NUMBER'],
    description: 'present when status is REJECTED (not charged, not sent)',
  })
  reason?: string;
  @ApiPropertyOptional(WINDOW_SEND_AT_DOC) send_at?: string;
}

export class SmsSendResponseDto {
  @ApiProperty({ example: API_REFERENCE, pattern: '^\\d{19}$' }) api_reference: string;
  @ApiProperty({ type: [SmsSendEntryDto] }) data: SmsSendEntryDto[];
  @ApiProperty({ example: 'successful' }) message: string;
  @ApiProperty({ example: true }) success: boolean;
  @ApiPropertyOptional({
    type: 'array',
    items: {
      type: 'object',
      properties: { from: { type: 'string' }, to: { type: 'string' }, count: { type: 'integer' } },
    },
    description:
      'Only when smart encoding was on: the characters replaced by GSM-7 look-alikes (empty if none)',
    example: [{ from: '\u2019', to: "'", count: 2 }],
  })
  replaced?: Array<{ from: string; to: string; count: number }>;
  @ApiPropertyOptional(SEND_AT_DOC) send_at?: string;
}

/** The JSON SMS endpoint. */
export function smsResponse(o: SendOutcome) {
  return {
    api_reference: o.apiReference,
    data: o.entries.map((e) => ({
      message_id: e.uuid,
      mobile_number: e.recipient,
      status: e.status,
      ...(e.reason ? { reason: e.reason } : {}),
      ...(e.sendAt ? { send_at: e.sendAt.toISOString() } : {}),
    })),
    message: 'successful',
    success: true,
    // Only when smart encoding was on, so an ordinary send keeps the documented shape.
    ...(o.replaced ? { replaced: o.replaced } : {}),
    ...(o.sendAt ? { send_at: o.sendAt } : {}),
  };
}
