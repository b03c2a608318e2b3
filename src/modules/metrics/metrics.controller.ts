import { Controller, Get, Inject, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '../../platform/http/public.decorator.js';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { MetricsTokenAuth, checkMetricsToken } from './metrics-token.js';
import { MetricsService } from './metrics.service.js';

/** Prometheus scrape endpoint: no API key (@Public), but METRICS_TOKEN when configured. */
@ApiTags('operations')
@Public()
@Controller('metrics')
export class MetricsController {
  constructor(
    private readonly metrics: MetricsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get()
  @ApiOperation({
    summary: 'Prometheus metrics (text exposition format)',
    description: 'Needs `Authorization: Bearer <METRICS_TOKEN>` when METRICS_TOKEN is set; open otherwise.',
  })
  @MetricsTokenAuth()
  @ApiOkResponse({
    description: 'Prometheus text format 0.0.4',
    content: {
      'text/plain': {
        schema: {
          type: 'string',
          example: 'http_requests_total{method="POST",route="/api/v1/json/bulk/sms",status="200"} 42',
        },
      },
    },
  })
  async scrape(@Req() req: Request, @Res() res: Response): Promise<void> {
    checkMetricsToken(this.config.metricsToken, req);
    const { contentType, body } = await this.metrics.render();
    res.setHeader('Content-Type', contentType);
    res.setHeader('Cache-Control', 'no-store');
    res.status(200).send(body);
  }
}
