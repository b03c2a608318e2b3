import type { AddressInfo } from 'node:net';
import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import smpp from 'smpp';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { PeriodicTask } from '../../platform/periodic/periodic-task.js';
import { BindChecker } from './binds/bind-check.service.js';
import { BIND_TICK_MS, BindRegistry } from './binds/bind.registry.js';
import { SubmitBucket } from './binds/submit-bucket.service.js';
import { BoundSessions } from './bound-sessions.registry.js';
import { SmppSession, type SessionDeps } from './session/smpp-session.js';
import { SmppSubmitHandler } from './submit/smpp-submit.handler.js';
import { SmppSubmitMetrics } from './submit/smpp-submit.metrics.js';

/**
 * The SMPP server for customers' ESMEs, in every API process: a plain listener on
 * SMPP_SERVER_PORT and a TLS one when a certificate is configured. Every second it refreshes
 * this process's binds in the registry (a killed process's binds lapse) and unbinds those an
 * operator kicked. At shutdown it stops listening, lets each session's PDUs be answered, and
 * unbinds them, within the app's drain.
 */
@Injectable()
export class SmppListener implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('SmppServer');
  private readonly servers: Array<{ server: smpp.Server; tls: boolean }> = [];
  private readonly sessions = new Set<SmppSession>();
  private readonly deps: SessionDeps;
  private readonly tick = new PeriodicTask({
    run: () => this.refresh(),
    everyMs: BIND_TICK_MS,
    logger: this.logger,
    failure: 'SMPP bind registry refresh failed',
  });

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly registry: BindRegistry,
    private readonly bound: BoundSessions,
    checker: BindChecker,
    bucket: SubmitBucket,
    submits: SmppSubmitHandler,
    metrics: SmppSubmitMetrics,
  ) {
    this.deps = {
      window: config.smppServer.window,
      idleMs: config.smppServer.idleMs,
      checker,
      registry,
      bound,
      bucket,
      submits,
      metrics,
      logger: this.logger,
      onClosed: (s) => this.sessions.delete(s),
    };
  }

  /** The ports listened on (plain first), as bound: a test reads them. */
  ports(): { plain: number | null; tls: number | null } {
    const port = (tls: boolean) => {
      const s = this.servers.find((x) => x.tls === tls)?.server;
      return s?.listening ? (s.address() as AddressInfo).port : null;
    };
    return { plain: port(false), tls: port(true) };
  }

  async onApplicationBootstrap(): Promise<void> {
    const { port, tls } = this.config.smppServer;
    if (port === 0) return;
    await this.listen(
      smpp.createServer((s) => this.accept(s)),
      port,
      false,
    );
    if (tls)
      await this.listen(
        smpp.createServer({ key: tls.key, cert: tls.cert }, (s) => this.accept(s)),
        tls.port,
        true,
      );
    this.tick.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (!this.servers.length) return;
    await this.tick.stop();
    const stopped = this.servers.map(
      ({ server }) => new Promise<void>((resolve) => server.close(() => resolve())),
    );
    await Promise.all([...this.sessions].map((s) => s.close('shutting down')));
    await Promise.all(stopped);
  }

  private listen(server: smpp.Server, port: number, tls: boolean): Promise<void> {
    this.servers.push({ server, tls });
    // A connection that fails before the session exists (a TLS handshake) must not end the process.
    server.on('tlsClientError', (err: Error) =>
      this.logger.debug(`SMPP TLS handshake failed: ${err.message}`),
    );
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, () => {
        server.off('error', reject);
        server.on('error', (err: Error) => this.logger.error(`SMPP listener: ${err.message}`));
        this.logger.log(
          `SMPP server listening on :${(server.address() as AddressInfo).port}${tls ? ' (TLS)' : ''}`,
        );
        resolve();
      });
    });
  }

  private accept(session: smpp.Session): void {
    this.sessions.add(new SmppSession(session, this.deps));
  }

  private async refresh(): Promise<void> {
    const mine = this.bound.all() as SmppSession[];
    const kicks = await this.registry.refresh(mine.map((s) => s.entry()));
    // A bind given up while the refresh was on its way had its entry written back: drop it again.
    for (const s of mine) if (s.gone) await this.registry.release(s.credentialId, s.id);
    for (const s of mine) {
      const at = kicks.get(s.credentialId);
      if (at !== undefined && s.since.getTime() <= at) void s.close('kicked by an operator');
    }
  }
}
