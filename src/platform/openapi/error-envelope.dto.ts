import { ApiProperty } from '@nestjs/swagger';
import { ERROR_STATUS } from '../errors/error-codes.js';

/** The one error shape, for the OpenAPI document. */
export class ErrorDetailDto {
  @ApiProperty({ example: 'to[3]' }) field: string;
  @ApiProperty({ example: 'INVALID_NUMBER' }) message: string;
}

export class ErrorBodyDto {
  @ApiProperty({ enum: Object.keys(ERROR_STATUS), example: 'VALIDATION_ERROR' }) code: string;
  @ApiProperty({ type: [ErrorDetailDto] }) details: ErrorDetailDto[];
}

export class ErrorEnvelopeDto {
  @ApiProperty({ example: false, enum: [false] }) success: boolean;
  @ApiProperty({ example: 'No valid recipient in the request.' }) message: string;
  @ApiProperty({ type: ErrorBodyDto }) error: ErrorBodyDto;
  @ApiProperty({
    example: '3f1c2a9e-6a2b-4c51-9d7e-0b6f1f3c2d10',
    description: 'also in the X-Request-Id response header',
  })
  request_id: string;
}
