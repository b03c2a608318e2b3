import { ApiProperty } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';

/** Presence is checked by AccountsService.verifyCredentials, so both answer alike. */
export class BalanceRequestDto {
  @ApiProperty({ description: 'API username.', example: 'acme', maxLength: 64 })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  username?: string;

  @ApiProperty({
    description: 'API password.',
    example: 'a-long-secret',
    maxLength: 1024,
    format: 'password',
  })
  @IsOptional()
  @IsString()
  @MaxLength(1024)
  password?: string;
}
