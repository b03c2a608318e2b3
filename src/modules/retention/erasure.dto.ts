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

  @ApiProperty({ description: 'All rows and archive lines changed' })
  total: number;

  @ApiProperty({
    description:
      'Messages to this recipient not yet in a final state, left as they are: erase again once they end',
  })
  pending: number;
}
