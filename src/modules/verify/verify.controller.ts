import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiErrors, ApiKeyAuth } from '../../platform/openapi/api-docs.decorators.js';
import { Auth, sideOf, type AuthContext } from '../api-keys/auth/auth-context.js';
import { Idempotent } from '../idempotency/idempotent.decorator.js';
import { MAX_ATTEMPTS, VerificationChecks } from './verification-checks.service.js';
import {
  checkedResponse,
  startedResponse,
  verificationResponse,
  VerificationCheckedDto,
  VerificationDto,
  VerificationStartedDto,
  VerifyCheckDto,
  verifyStartInput,
  VerifyStartDto,
} from './verify.dto.js';
import { VerifyService } from './verify.service.js';

const VERIFICATION_ID = {
  name: 'verificationId',
  description: 'The verification_id of the start',
  format: 'uuid',
};

@ApiTags('verify')
@ApiKeyAuth()
@Controller('api/v1/json/verify')
export class VerifyController {
  constructor(
    private readonly verify: VerifyService,
    private readonly checks: VerificationChecks,
  ) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({
    summary: 'Send a one-time code by SMS, e-mail or chat',
    description:
      'The code goes through the ordinary send pipeline of the channel (priced, charged, routed, suppressed, limited). A new start to a number replaces its pending verification; at most 5 starts per number in 10 minutes (429 `TOO_MANY_VERIFICATIONS`); codes to a prefix or country the pumping guard has blocked are 429 `SUSPECTED_PUMPING`; a recipient the pipeline refuses is 422 `RECIPIENT_REJECTED` naming `to`. Nothing is sent or charged in any of these cases.',
  })
  @ApiCreatedResponse({ type: VerificationStartedDto })
  @Idempotent({ secret: { field: 'test_code' } })
  @ApiErrors([400, 401, 402, 403, 404, 409, 413, 415, 422, 429, 500, 503])
  async start(@Auth() auth: AuthContext, @Body() dto: VerifyStartDto): Promise<VerificationStartedDto> {
    return startedResponse(await this.verify.start(auth, verifyStartInput(dto)));
  }

  @Post(':verificationId/check')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Check a code: approved, pending (wrong, attempts remain), max_attempts_reached or expired',
  })
  @ApiParam(VERIFICATION_ID)
  @ApiOkResponse({ type: VerificationCheckedDto })
  @ApiErrors([400, 401, 403, 404, 409, 413, 415, 429, 500, 503])
  async check(
    @Auth() auth: AuthContext,
    @Param('verificationId') id: string,
    @Body() dto: VerifyCheckDto,
  ): Promise<VerificationCheckedDto> {
    return checkedResponse(await this.checks.check(sideOf(auth), id, dto.code));
  }

  @Post(':verificationId/cancel')
  @HttpCode(200)
  @ApiOperation({ summary: 'Cancel a pending verification: its code stops working' })
  @ApiParam(VERIFICATION_ID)
  @ApiOkResponse({ type: VerificationDto })
  @ApiErrors([401, 403, 404, 409, 429, 500, 503])
  async cancel(@Auth() auth: AuthContext, @Param('verificationId') id: string): Promise<VerificationDto> {
    return verificationResponse(await this.checks.cancel(sideOf(auth), id), MAX_ATTEMPTS);
  }

  @Get(':verificationId')
  @ApiOperation({ summary: 'One verification (never its code)' })
  @ApiParam(VERIFICATION_ID)
  @ApiOkResponse({ type: VerificationDto })
  @ApiErrors([401, 403, 404, 429, 500, 503])
  async get(@Auth() auth: AuthContext, @Param('verificationId') id: string): Promise<VerificationDto> {
    return verificationResponse(await this.checks.get(sideOf(auth), id), MAX_ATTEMPTS);
  }
}
