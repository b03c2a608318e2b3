import { IsOptional, IsString, MaxLength } from 'class-validator';

/** spec §2.7. Presence is checked by AccountsService.verifyCredentials, so both answer alike. */
export class BalanceRequestDto {
  @IsOptional() @IsString() @MaxLength(64)
  username?: string;

  @IsOptional() @IsString() @MaxLength(1024)
  password?: string;
}
