import { IsOptional, IsString, MaxLength } from 'class-validator';
import { IsStringOrStringArray } from '../../common/validation/validators.js';

/**
 * spec §2.1. Both name sets are accepted: from/to/message and the older
 * sender_id/recipient/message_body; which ones are required is checked after mapping.
 */
export class SmsSendDto {
  @IsOptional() @IsString() @MaxLength(64)
  from?: string;

  @IsOptional() @IsString() @MaxLength(64)
  sender_id?: string;

  @IsOptional() @IsStringOrStringArray()
  to?: string | string[];

  @IsOptional() @IsStringOrStringArray()
  recipient?: string | string[];

  @IsOptional() @IsString()
  message?: string;

  @IsOptional() @IsString()
  message_body?: string;

  @IsOptional() @IsString() @MaxLength(2048)
  callback_url?: string;

  @IsOptional() @IsString() @MaxLength(255)
  source?: string;

  @IsOptional() @IsString() @MaxLength(255)
  user_reference_id?: string;
}
