import { Controller, Get, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '../../platform/http/public.decorator.js';
import {
  HEALTH_DETAILED_UNHEALTHY_EXAMPLE,
  HEALTH_NOT_READY_EXAMPLE,
  HealthBasicResponse,
  HealthDetailedResponse,
  HealthLiveResponse,
  HealthReadyResponse,
} from './health.dto.js';
import { HealthService } from './health.service.js';

/** The health probes; no key needed. */
@ApiTags('health')
@Public()
@Controller('health')
export class HealthController {
  constructor(private readonly health: HealthService) {}

  @Get()
  @ApiOperation({ summary: 'Service identity and uptime' })
  @ApiOkResponse({ type: HealthBasicResponse })
  basic() {
    return this.health.basic();
  }

  @Get('detailed')
  @ApiOperation({ summary: 'Every dependency and provider, each with its own verdict; answers within 1 s' })
  @ApiOkResponse({ type: HealthDetailedResponse, description: 'every check healthy' })
  @ApiServiceUnavailableResponse({
    type: HealthDetailedResponse,
    description: 'a check failed: status "unhealthy", the failed member names the cause',
    example: HEALTH_DETAILED_UNHEALTHY_EXAMPLE,
  })
  async detailed(@Res({ passthrough: true }) res: Response) {
    const { httpStatus, body } = await this.health.detailed();
    res.status(httpStatus);
    return body;
  }

  @Get('live')
  @ApiOperation({ summary: 'Liveness: 200 while the process serves' })
  @ApiOkResponse({ type: HealthLiveResponse })
  live() {
    return this.health.live();
  }

  @Get('ready')
  @ApiOperation({
    summary:
      'Readiness: 503 while starting, while a database or Redis does not answer, and while shutting down',
  })
  @ApiOkResponse({ type: HealthReadyResponse })
  @ApiServiceUnavailableResponse({
    type: HealthReadyResponse,
    description: 'status "not_ready"',
    example: HEALTH_NOT_READY_EXAMPLE,
  })
  async ready(@Res({ passthrough: true }) res: Response) {
    const { httpStatus, body } = await this.health.ready();
    res.status(httpStatus);
    return body;
  }
}
