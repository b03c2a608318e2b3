import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min, MinLength } from 'class-validator';
import { CHANNELS, type Channel } from '../messages/channel.js';
import type { CheckResult } from './verification-checks.service.js';
import type { VerificationRow } from './verification.store.js';
import type { Started, VerifyStart } from './verify.service.js';

const EXAMPLE_ID = '0b9d5a1e-3c1f-4f0e-9a57-3c2b8e6d4f10';
const STATUSES = ['pending', 'approved', 'max_attempts_reached', 'expired', 'canceled'];

export class VerifyStartDto {
  @ApiProperty({
    description: 'A phone number (sms, chat) or an e-mail address (email)',
    example: '260971234567',
  })
  @IsString()
  @MaxLength(320)
  to!: string;

  @ApiPropertyOptional({ enum: CHANNELS, default: 'sms' })
  @IsOptional()
  @IsIn(CHANNELS)
  channel?: Channel;

  @ApiPropertyOptional({
    description:
      'The sender: an SMS sender id (default "Verify"), the e-mail sender address or the chat business number (required for those two)',
    example: 'Acme',
  })
  @IsOptional()
  @IsString()
  @MaxLength(320)
  from?: string;

  @ApiPropertyOptional({ minimum: 4, maximum: 10, default: 6, description: 'Digits of the code' })
  @IsOptional()
  @IsInt({ message: 'code_length must be a whole number from 4 to 10' })
  @Min(4, { message: 'code_length must be a whole number from 4 to 10' })
  @Max(10, { message: 'code_length must be a whole number from 4 to 10' })
  code_length?: number;

  @ApiPropertyOptional({
    minimum: 60,
    maximum: 3600,
    default: 600,
    description: 'How long the code works, in seconds',
  })
  @IsOptional()
  @IsInt({ message: 'ttl_seconds must be a whole number from 60 to 3600' })
  @Min(60, { message: 'ttl_seconds must be a whole number from 60 to 3600' })
  @Max(3600, { message: 'ttl_seconds must be a whole number from 60 to 3600' })
  ttl_seconds?: number;

  @ApiPropertyOptional({
    format: 'uuid',
    description: "A template of the verification's channel whose body holds {{code}}",
  })
  @IsOptional()
  @IsString()
  template_id?: string;

  @ApiPropertyOptional({
    description: 'The text; must hold {{code}} (default "Your code is {{code}}")',
    example: 'Your Acme code is {{code}}',
  })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(1000)
  message?: string;
}

export class VerifyCheckDto {
  @ApiProperty({ description: 'The code the user entered: 4 to 10 digits', example: '123456' })
  @IsString({ message: 'code must be text of 4 to 10 digits' })
  @Matches(/^\d{4,10}$/, { message: 'code must be text of 4 to 10 digits' })
  code!: string;
}

export class VerificationStartedDto {
  @ApiProperty({ format: 'uuid', example: EXAMPLE_ID }) verification_id!: string;
  @ApiProperty({ example: '260971234567' }) to!: string;
  @ApiProperty({ enum: CHANNELS, example: 'sms' }) channel!: string;
  @ApiProperty({ enum: ['pending'], example: 'pending' }) status!: string;
  @ApiProperty({ format: 'date-time' }) expires_at!: string;
  @ApiProperty({ description: "The code's message, as the message lookup takes it" }) message_id!: string;
  @ApiPropertyOptional({ description: 'Test keys only: the code (nothing is sent)', example: '123456' })
  test_code?: string;
}

export class VerificationCheckedDto {
  @ApiProperty({ format: 'uuid', example: EXAMPLE_ID }) verification_id!: string;
  @ApiProperty({ enum: STATUSES, example: 'approved' }) status!: string;
  @ApiProperty({ example: 5 }) attempts_remaining!: number;
}

export class VerificationDto {
  @ApiProperty({ format: 'uuid', example: EXAMPLE_ID }) verification_id!: string;
  @ApiProperty({ example: '260971234567' }) to!: string;
  @ApiProperty({ enum: CHANNELS, example: 'sms' }) channel!: string;
  @ApiProperty({ enum: STATUSES, example: 'pending' }) status!: string;
  @ApiProperty({ example: 5 }) attempts_remaining!: number;
  @ApiProperty({ nullable: true, type: String }) message_id!: string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time' }) expires_at!: string;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) closed_at!: string | null;
}

/** The body as the service takes it, defaults applied. */
export function verifyStartInput(dto: VerifyStartDto): VerifyStart {
  return {
    to: dto.to,
    channel: dto.channel ?? 'sms',
    from: dto.from,
    codeLength: dto.code_length ?? 6,
    ttlSeconds: dto.ttl_seconds ?? 600,
    templateId: dto.template_id,
    message: dto.message,
  };
}

export function startedResponse(s: Started): VerificationStartedDto {
  return {
    verification_id: s.id,
    to: s.to,
    channel: s.channel,
    status: 'pending',
    expires_at: s.expiresAt.toISOString(),
    message_id: s.messageId,
    ...(s.testCode !== undefined ? { test_code: s.testCode } : {}),
  };
}

export function checkedResponse(c: CheckResult): VerificationCheckedDto {
  return { verification_id: c.id, status: c.status, attempts_remaining: c.attemptsRemaining };
}

/** A verification as GET and cancel show it: never the code, nor its digest. */
export function verificationResponse(v: VerificationRow, maxAttempts: number): VerificationDto {
  return {
    verification_id: v.id,
    to: v.recipient,
    channel: v.channel,
    status: v.status,
    attempts_remaining: Math.max(0, maxAttempts - v.attempts),
    message_id: v.public_message_id,
    created_at: v.created_at.toISOString(),
    expires_at: v.expires_at.toISOString(),
    closed_at: v.closed_at?.toISOString() ?? null,
  };
}
