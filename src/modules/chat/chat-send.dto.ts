import { IsOptional, IsString, MaxLength, ValidateBy } from 'class-validator';
import { IsStringOrStringArray } from '../../common/validation/validators.js';

/** The spec's example sends the chat sender id as a JSON number; a string of digits is the same thing. */
function IsStringOrWholeNumber(): PropertyDecorator {
  return ValidateBy({
    name: 'isStringOrWholeNumber',
    validator: {
      validate: (v: unknown) => typeof v === 'string' || (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0),
      defaultMessage: (args) => `${args?.property} must be a string or a whole number`,
    },
  });
}

/**
 * spec §2.5. `recipient` is a list in the spec; a single string is accepted too, like `to` on
 * the other channels. `user_reference_id` is not in the spec's table: it is accepted so a chat
 * send can be retried safely like the others (decisions §8).
 */
export class ChatSendDto {
  @IsOptional() @IsString()
  username?: string;

  // Bounded so an absurd value never reaches the password hash.
  @IsOptional() @IsString() @MaxLength(1024)
  password?: string;

  @IsOptional() @IsStringOrWholeNumber()
  senderid?: string | number;

  @IsOptional() @IsString()
  message?: string;

  @IsOptional() @IsStringOrStringArray()
  recipient?: string | string[];

  @IsOptional() @IsString() @MaxLength(255)
  user_reference_id?: string;
}
