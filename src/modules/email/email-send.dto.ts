import { IsOptional, IsString, MaxLength } from 'class-validator';
import { IsStringOrStringArray } from '../../common/validation/validators.js';

/**
 * spec §2.3. Types only: which fields are required, and what a valid address is, is checked
 * after mapping (email-input.ts, email.policy.ts) so every problem is reported in one answer.
 */
export class EmailSendDto {
  @IsOptional() @IsStringOrStringArray()
  to?: string | string[];

  @IsOptional() @IsString()
  subject?: string;

  @IsOptional() @IsString()
  email_body?: string;

  @IsOptional() @IsString() @MaxLength(320)
  from?: string;

  @IsOptional() @IsString() @MaxLength(320)
  reply_to?: string;

  @IsOptional() @IsString() @MaxLength(255)
  source?: string;

  @IsOptional() @IsString() @MaxLength(255)
  user_reference_id?: string;
}
