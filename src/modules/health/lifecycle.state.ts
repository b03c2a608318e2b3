import { Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';

/** Readiness is false until the app has started and again from the moment it begins to shut down. */
@Injectable()
export class LifecycleState implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private started = false;
  private stopping = false;

  onApplicationBootstrap(): void {
    this.started = true;
  }

  beforeApplicationShutdown(): void {
    this.beginShutdown();
  }

  /** Called as soon as a termination signal arrives (api.ts), before any shutdown hook runs. */
  beginShutdown(): void {
    this.stopping = true;
  }

  get accepting(): boolean {
    return this.started && !this.stopping;
  }

  get shuttingDown(): boolean {
    return this.stopping;
  }
}
