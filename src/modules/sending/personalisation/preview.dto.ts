import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class ReplacementDto {
  @ApiProperty({ example: '\u2019' }) from: string;
  @ApiProperty({ example: "'" }) to: string;
  @ApiProperty({ example: 2 }) count: number;
}

export class PreviewRecipientDto {
  @ApiProperty({ example: '260971234567' }) recipient: string;
  @ApiProperty({ enum: ['ACKNOWLEDGED', 'SCHEDULED', 'REJECTED'], description: 'What the send would answer' })
  status: string;
  @ApiPropertyOptional({
    enum: [
      'INVALID_NUMBER',
      'INVALID_EMAIL',
      'MISSING_VARIABLE',
      'MESSAGE_TOO_LONG',
      'COUNTRY_NOT_ALLOWED',
      'PREMIUM_NUMBER',
    ],
    description: 'Present when status is REJECTED',
  })
  reason?: string;
  @ApiProperty({
    enum: ['GSM-7', 'UCS-2'],
    nullable: true,
    description: 'SMS only; null for e-mail and chat, and for a recipient with no text',
  })
  encoding: string | null;
  @ApiProperty({ example: 42, description: 'Unicode code points of the text this recipient gets' })
  characters: number;
  @ApiProperty({ example: 1, description: 'SMS parts; 1 for e-mail and chat' }) segments: number;
  @ApiProperty({ example: 1, description: 'Units charged (0 when REJECTED)' }) units: number;
  @ApiProperty({ example: 0.25 }) cost: number;
  @ApiPropertyOptional({
    format: 'date-time',
    example: '2026-12-01T06:00:00.000Z',
    description:
      "Present when SCHEDULED: when it would go (its send window's next opening, else the request's send_at), in UTC",
  })
  send_at?: string;
}

export class PreviewTotalsDto {
  @ApiProperty({ example: 2 }) accepted: number;
  @ApiProperty({ example: 0 }) rejected: number;
  @ApiProperty({ example: 2 }) units: number;
  @ApiProperty({ example: 0.5 }) cost: number;
  @ApiProperty({ example: 'ZMW' }) currency: string;
  @ApiProperty({ example: 100, description: "The channel's balance now" }) balance: number;
  @ApiProperty({ example: true, description: 'Whether the balance would pay for the send' })
  sufficient: boolean;
}

export class PreviewResponseDto {
  @ApiProperty({ type: [PreviewRecipientDto] }) recipients: PreviewRecipientDto[];
  @ApiProperty({ type: PreviewTotalsDto }) totals: PreviewTotalsDto;
  @ApiProperty({
    type: [String],
    example: [],
    description: 'SMS: the distinct characters outside GSM-7 (after smart encoding) that make a text UCS-2',
  })
  non_gsm_characters: string[];
  @ApiPropertyOptional({
    type: [ReplacementDto],
    description: 'SMS with smart encoding on: what was replaced (empty when nothing was)',
  })
  replaced?: ReplacementDto[];
}

export const PREVIEW_DESCRIPTION =
  'Takes the same body as the send and runs the same checks and pricing, then stops: nothing is stored, charged or queued. A body the send would refuse gets the same error here.';
