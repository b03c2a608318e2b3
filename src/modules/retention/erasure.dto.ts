import { ApiProperty } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';

export class EraseRecipientDto {
  @ApiProperty({
    description: 'The phone number or e-mail address to erase, written as in a send',
    example: '260971234567',
    maxLength: 320,
  })
  @IsString()
  @MaxLength(320)
  recipient: string;
}

class ErasedRowsDto {
  @ApiProperty({ description: 'Messages whose number (or address) and personalised text were erased' })
  messages: number;

  @ApiProperty({ description: 'Requests sent to this recipient alone, whose text was erased' })
  send_requests: number;

  @ApiProperty({ description: 'Inbound messages from this recipient, whose number and text were erased' })
  inbound_messages: number;

  @ApiProperty({
    description:
      'Verifications to this recipient no longer pending (approved, failed, expired, canceled), whose number ' +
      '(or address) and kept message text were erased',
  })
  verifications: number;

  @ApiProperty({
    description:
      'Callback events not yet delivered (message events of those messages, inbound events from this recipient, ' +
      'verification events of its verifications) whose kept payload was erased',
  })
  callback_outbox: number;

  @ApiProperty({
    description:
      'Webhook delivery log rows (7 days, delivered or not) whose envelope named this recipient: message events ' +
      'of its messages no longer under way, inbound.received events from it, verification events of its ' +
      'verifications; a replay sends the rewritten envelope',
  })
  webhook_deliveries: number;

  @ApiProperty({ description: 'Kept answers of idempotent requests (24 hours) that named this recipient' })
  idempotency_keys: number;

  @ApiProperty({ description: 'Request log rows whose path named this recipient (a suppression removed)' })
  request_logs: number;

  @ApiProperty({ description: 'Short links of those messages, removed (they answer 404 from then on)' })
  short_links: number;

  @ApiProperty({ description: 'Archived message lines rewritten (when an archive is kept)' })
  archived_messages: number;
}

export class EraseRecipientResponseDto {
  @ApiProperty({ example: true })
  success: boolean;

  @ApiProperty({ description: 'The recipient as stored (normalised)', example: '260971234567' })
  recipient: string;

  @ApiProperty({ type: ErasedRowsDto })
  rows: ErasedRowsDto;

  @ApiProperty({
    description:
      'Archive files rewritten: each replaced whole, read back and listed with its new row count and SHA-256',
  })
  archive_files: number;

  @ApiProperty({ description: 'All rows and archive lines changed' })
  total: number;

  @ApiProperty({
    description:
      'Messages to this recipient not yet in a final state, and its verifications still pending, left as they ' +
      'are: erase again once they end',
  })
  pending: number;
}
