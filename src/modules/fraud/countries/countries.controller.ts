import { Body, Controller, Get, HttpCode, Param, Put } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { AppException } from '../../../platform/errors/app.exception.js';
import { ApiErrors, ApiKeyAuth } from '../../../platform/openapi/api-docs.decorators.js';
import { Auth, type AuthContext } from '../../api-keys/auth/auth-context.js';
import { CountriesDto, countriesDto, SubaccountCountriesDto } from './countries.dto.js';
import { CountriesService } from './countries.service.js';

@ApiTags('countries')
@ApiKeyAuth()
@Controller('api/v1/json')
export class CountriesController {
  constructor(private readonly countries: CountriesService) {}

  @Get('countries')
  @ApiOperation({
    summary: 'The countries the key’s account may send SMS and chat to, and whether premium-rate numbers',
  })
  @ApiOkResponse({ type: CountriesDto })
  @ApiErrors([401, 403, 429, 500, 503])
  async show(@Auth() auth: AuthContext): Promise<CountriesDto> {
    return countriesDto(await this.countries.view(auth.account));
  }

  @Put('subaccounts/:username/countries')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Set the countries a sub-account may send SMS and chat to (a live key of its parent)',
    description:
      '`allow` lists the only countries, `block` those refused, neither allows every one. A sub-account never reaches a country its parent may not, whatever its own setting.',
  })
  @ApiParam({ name: 'username', description: "The sub-account's username", example: 'acme-retail' })
  @ApiOkResponse({ type: CountriesDto })
  @ApiErrors([400, 401, 403, 404, 413, 415, 429, 500, 503])
  async setForSubaccount(
    @Auth() auth: AuthContext,
    @Param('username') username: string,
    @Body() dto: SubaccountCountriesDto,
  ): Promise<CountriesDto> {
    if (auth.key.mode !== 'live')
      throw new AppException('FORBIDDEN', 'A sub-account’s countries are set with a live key only.');
    return countriesDto(await this.countries.changeSubaccount(auth.account, username, dto));
  }
}
