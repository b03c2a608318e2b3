import { Inject, Module, type DynamicModule, type MiddlewareConsumer, type NestModule } from '@nestjs/common';
import { Router, type Request, type Response } from 'express';
import type { AppConfig } from '../../config/config.js';
import { sendError } from '../../platform/errors/error-body.js';
import { ConnectorAdminService } from '../delivery/smpp/connector-admin.service.js';
import { ConnectorAdminModule } from '../delivery/smpp/connector-admin.module.js';
import { adminAuth } from './admin-auth.js';
import { CONNECTORS_PAGE_PATH } from './admin-paths.js';
import { CONNECTORS_PAGE_HTML, CONNECTORS_PAGE_SCRIPT } from './connectors-page.js';

const ADMIN_TOKEN = Symbol('ADMIN_TOKEN');

/**
 * The SMSC links in a browser, beside the queue dashboard and behind the same ADMIN_TOKEN:
 * each connector's bind state over the workers, window in flight, queued, sent per second and
 * last error, as `connectors list` shows them (what the workers report every 2 seconds).
 * GET /admin/connectors is the page, /admin/connectors/api its JSON.
 */
@Module({})
export class ConnectorsPageModule implements NestModule {
  constructor(
    @Inject(ADMIN_TOKEN) private readonly token: string,
    private readonly connectors: ConnectorAdminService,
  ) {}

  static forRoot(config: AppConfig & { adminToken: string }): DynamicModule {
    return {
      module: ConnectorsPageModule,
      imports: [ConnectorAdminModule],
      providers: [{ provide: ADMIN_TOKEN, useValue: config.adminToken }],
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(adminAuth(this.token), this.router()).forRoutes(CONNECTORS_PAGE_PATH);
  }

  private router(): Router {
    const router = Router({ strict: true });
    const send = (type: string, body: string) => (_: Request, res: Response) => {
      res.type(type).setHeader('Cache-Control', 'no-store');
      res.send(body);
    };
    router.get('/', send('html', CONNECTORS_PAGE_HTML));
    router.get('/page.js', send('application/javascript', CONNECTORS_PAGE_SCRIPT));
    router.get('/api', (_req, res, next) => {
      this.connectors.list().then((connectors) => {
        res.setHeader('Cache-Control', 'no-store');
        res.json({ connectors });
      }, next);
    });
    router.all(['/', '/page.js', '/api'], (req, res) =>
      sendError(req, res, 405, 'METHOD_NOT_ALLOWED', `${req.method} is not allowed here.`, [], {
        Allow: 'GET, HEAD',
      }),
    );
    router.use((req, res) => sendError(req, res, 404, 'NOT_FOUND', 'No such route or resource.'));
    return router;
  }
}
