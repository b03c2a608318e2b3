import { ApiProperty } from '@nestjs/swagger';
import { toNumber } from '../../platform/money/money.js';
import type { NumberLookup } from './lookup.service.js';
import { NUMBER_TYPES } from './number-facts.js';

export class NumberLookupDto {
  @ApiProperty({ example: '260971234567', description: 'the number in E.164 digits, without +' })
  number: string;
  @ApiProperty({ example: true, description: "whether the number plan knows the number's range" })
  valid: boolean;
  @ApiProperty({ type: 'string', nullable: true, example: 'ZM', description: 'ISO 3166 alpha-2' })
  country: string | null;
  @ApiProperty({ type: 'string', nullable: true, example: '260' })
  calling_code: string | null;
  @ApiProperty({ enum: NUMBER_TYPES, example: 'mobile' })
  type: string;
  @ApiProperty({
    type: 'number',
    nullable: true,
    example: 0.25,
    description: 'what one SMS segment to it would cost this account; null when no route takes it',
  })
  sms_price: number | null;
  @ApiProperty({ example: 'ZMW' })
  currency: string;
}

export function numberLookupDto(l: NumberLookup): NumberLookupDto {
  return {
    number: l.number,
    valid: l.valid,
    country: l.country,
    calling_code: l.calling_code,
    type: l.type,
    sms_price: l.smsPrice === null ? null : toNumber(l.smsPrice),
    currency: l.currency,
  };
}
