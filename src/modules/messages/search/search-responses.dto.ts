import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { MessageDto } from '../../../platform/openapi/responses.js';

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
