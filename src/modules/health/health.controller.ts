import { Controller, Get, Inject, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
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
import { MetricsTokenAuth, checkMetricsToken } from '../metrics/metrics-token.js';

/**
 * The health probes; no API key needed. /health/detailed names hosts and probes every provider:
 * it wants the metrics token where one is set, as /metrics does, and reuses its answer for
 * HEALTH_DETAILED_CACHE_MS. The orchestrators' probes (/health/live, /health/ready) stay open.
 */
@ApiTags('health')
@Public()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get()
  @ApiOperation({ summary: 'Service identity and uptime' })
  @ApiOkResponse({ type: HealthBasicResponse })
  basic() {
    return this.health.basic();
  }

  @Get('detailed')
  @ApiOperation({
    summary: 'Every dependency and provider, each with its own verdict; answers within 1 s',
    description:
      'Needs `Authorization: Bearer <METRICS_TOKEN>` when METRICS_TOKEN is set; open otherwise. The answer is reused for HEALTH_DETAILED_CACHE_MS (2 s), so a flood of requests runs the checks once.',
  })
  @MetricsTokenAuth()
  @ApiOkResponse({ type: HealthDetailedResponse, description: 'every check healthy' })
  @ApiServiceUnavailableResponse({
    type: HealthDetailedResponse,
    description: 'a check failed: status "unhealthy", the failed member names the cause',
    example: HEALTH_DETAILED_UNHEALTHY_EXAMPLE,
  })
  async detailed(@Req() req: Request, @Res({ passthrough: true }) res: Response) {
    checkMetricsToken(this.config.metricsToken, req);
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
