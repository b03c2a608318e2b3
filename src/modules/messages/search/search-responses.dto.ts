import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { MessageDto } from '../message-response.dto.js';
import type { ExportRow } from '../message-search.store.js';
import { CSV_HEADER, csvLine, ndjsonLine } from './message-export.service.js';

const API_REFERENCE = '1764184470578998353';

/** The search answer: cursor-paged, or page-numbered for one request (api_reference alone). */
export class MessageSearchResponseDto {
  @ApiPropertyOptional({ example: 100, type: 'integer', description: 'cursor paging: the page size used' })
  limit?: number;
  @ApiPropertyOptional({
    nullable: true,
    type: 'string',
    example: 'MTc2NDE4NDQ3MDU3ODoxNzY0MTg0NDcwNTc4OTk4MzUz',
    description: 'cursor paging: pass as cursor for the next page; null on the last page',
  })
  next_cursor?: string | null;
  @ApiPropertyOptional({ example: API_REFERENCE, description: 'page-numbered list only' })
  api_reference?: string;
  @ApiPropertyOptional({ example: 1, type: 'integer', description: 'page-numbered list only' })
  page?: number;
  @ApiPropertyOptional({ example: 100, type: 'integer', description: 'page-numbered list only' })
  per_page?: number;
  @ApiPropertyOptional({ example: 2, type: 'integer', description: 'page-numbered list only' })
  total?: number;
  @ApiProperty({ type: [MessageDto] }) data: MessageDto[];
}

/** A chat message and its fallback SMS, linked both ways, as the export's examples show them. */
const EXAMPLE_CHAT: ExportRow = {
  id: '1795380112356003001',
  uuid: '01a204a3-83e4-74f4-b6a0-5e62cf2b1a50',
  channel: 'chat',
  send_request_id: '1795380112356003000',
  user_reference_id: null,
  recipient: '260971234567',
  status: 'SENT',
  reason: null,
  units: 1,
  cost: '1',
  currency: 'ZMW',
  created_at: '2026-11-27T06:40:00.120Z',
  updated_at: '2026-11-27T06:40:00.180Z',
  fallback_message_id: '01a204a3-83e4-74f4-b6a0-5e62cf2b1a58',
  fallback_of: null,
};
const EXAMPLE_SMS: ExportRow = {
  ...EXAMPLE_CHAT,
  id: '1795380172412004001',
  uuid: '01a204a3-83e4-74f4-b6a0-5e62cf2b1a58',
  channel: 'sms',
  send_request_id: '1795380172412004000',
  user_reference_id: 'fallback-01a204a3-83e4-74f4-b6a0-5e62cf2b1a50',
  status: 'DELIVERED',
  reason: null,
  cost: '0.25',
  created_at: '2026-11-27T06:41:00.412Z',
  updated_at: '2026-11-27T06:41:01.470Z',
  fallback_message_id: null,
  fallback_of: EXAMPLE_CHAT.uuid,
};

/** The export's answer in each format, written by the export's own line writers. */
export const EXPORT_EXAMPLES = {
  csv: CSV_HEADER + csvLine(EXAMPLE_CHAT) + csvLine(EXAMPLE_SMS),
  ndjson: ndjsonLine(EXAMPLE_CHAT) + ndjsonLine(EXAMPLE_SMS),
};
