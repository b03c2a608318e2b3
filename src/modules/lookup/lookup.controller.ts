import { Controller, Get, Param } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiErrors, ApiKeyAuth } from '../../platform/openapi/api-docs.decorators.js';
import { Auth, type AuthContext } from '../api-keys/auth/auth-context.js';
import { NumberLookupDto, numberLookupDto } from './lookup.dto.js';
import { LookupService } from './lookup.service.js';

@ApiTags('lookup')
@ApiKeyAuth()
@Controller('api/v1/json/lookup')
export class LookupController {
  constructor(private readonly lookups: LookupService) {}

  @Get(':number')
  @ApiOperation({
    summary: "A number's country, type and SMS price for the key's account (free; no network call)",
    description:
      'From the number plan the service ships. A send to a number of type premium_rate is refused (PREMIUM_NUMBER) unless the account allows premium-rate numbers.',
  })
  @ApiParam({
    name: 'number',
    description: 'Digits with the country code; + or 00 and separators are ignored',
    example: '260971234567',
  })
  @ApiOkResponse({ type: NumberLookupDto })
  @ApiErrors([400, 401, 403, 429, 500, 503])
  async lookup(@Auth() auth: AuthContext, @Param('number') number: string): Promise<NumberLookupDto> {
    return numberLookupDto(await this.lookups.lookup(auth.account, number));
  }
}
