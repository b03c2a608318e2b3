import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { API_REFERENCE, SEND_AT_DOC, WINDOW_SEND_AT_DOC } from '../../send-response.docs.js';
import type { SendOutcome } from '../../send.types.js';

/** The e-mail route's answer: its OpenAPI shape and the mapper from the pipeline's outcome. */

export const EMAIL_SEND_EXAMPLE = {
  api_reference: API_REFERENCE,
  data: [
    { email_address: 'jane@example.com', message_id: '5', status: 'ACKNOWLEDGED' },
    { email_address: 'not-an-address', message_id: '6', status: 'REJECTED', reason: 'INVALID_EMAIL' },
  ],
  message: 'successful',
  success: true,
};

export class EmailSendEntryDto {
  @ApiProperty({ example: 'jane@example.com' }) email_address: string;
  @ApiProperty({ example: '5', description: 'numeric text' }) message_id: string;
  @ApiProperty({ enum: ['ACKNOWLEDGED', 'SCHEDULED', 'REJECTED'], example: 'ACKNOWLEDGED' }) status: string;
  @ApiPropertyOptional({
    enum: ['INVALID_EMAIL', 'MISSING_VARIABLE', 'MESSAGE_TOO_LONG'],
    description: 'present when status is REJECTED',
  })
  reason?: string;
  @ApiPropertyOptional(WINDOW_SEND_AT_DOC) send_at?: string;
}

export class EmailSendResponseDto {
  @ApiProperty({ example: API_REFERENCE, pattern: '^\\d{19}$' }) api_reference: string;
  @ApiProperty({ type: [EmailSendEntryDto] }) data: EmailSendEntryDto[];
  @ApiProperty({ example: 'successful' }) message: string;
  @ApiProperty({ example: true }) success: boolean;
  @ApiPropertyOptional(SEND_AT_DOC) send_at?: string;
}

/** message_id is the numeric message id, not the UUID. */
export function emailResponse(o: SendOutcome) {
  return {
    api_reference: o.apiReference,
    data: o.entries.map((e) => ({
      email_address: e.recipient,
      message_id: e.messageId,
      status: e.status,
      ...(e.reason ? { reason: e.reason } : {}),
      ...(e.sendAt ? { send_at: e.sendAt.toISOString() } : {}),
    })),
    message: 'successful',
    success: true,
    ...(o.sendAt ? { send_at: o.sendAt } : {}),
  };
}
