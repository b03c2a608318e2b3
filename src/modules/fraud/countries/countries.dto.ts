import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import type { CountriesView } from './countries.service.js';

const MODES = ['all', 'allow', 'block'];

export class SubaccountCountriesDto {
  @ApiPropertyOptional({
    type: [String],
    description:
      'Only these countries (ISO 3166 alpha-2). Give allow or block, not both; neither: every country.',
    example: ['ZM', 'KE'],
  })
  @IsOptional()
  allow?: unknown;

  @ApiPropertyOptional({
    type: [String],
    description: 'Every country but these (ISO 3166 alpha-2)',
    example: ['NG'],
  })
  @IsOptional()
  block?: unknown;
}

export class EffectiveCountriesDto {
  @ApiProperty({
    enum: MODES,
    example: 'allow',
    description: 'all: every country; allow: only `countries`; block: every country but `countries`',
  })
  mode: string;
  @ApiProperty({ type: [String], example: ['KE', 'ZM'] }) countries: string[];
  @ApiProperty({ example: false, description: 'whether premium-rate numbers may be sent to' })
  premium: boolean;
}

export class CountriesDto {
  @ApiProperty({ example: 'acme' }) username: string;
  @ApiProperty({ enum: MODES, example: 'allow', description: "the account's own setting" })
  mode: string;
  @ApiProperty({ type: [String], example: ['KE', 'ZM'], description: 'the countries its mode lists' })
  countries: string[];
  @ApiProperty({ example: false, description: 'its own premium-rate setting' })
  premium: boolean;
  @ApiProperty({
    type: EffectiveCountriesDto,
    description: "where it may really send: its own setting bounded by its parent's (for a sub-account)",
  })
  effective: EffectiveCountriesDto;
}

/** The answer of the countries routes (and of `accounts countries --json`). */
export function countriesDto(view: CountriesView): CountriesDto {
  return {
    username: view.username,
    mode: view.rule.mode,
    countries: view.rule.countries,
    premium: view.rule.premium,
    effective: view.effective,
  };
}
