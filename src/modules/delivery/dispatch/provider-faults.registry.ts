import { Injectable } from '@nestjs/common';
import type { Channel } from '../../messages/channel.js';

export interface ProviderFault {
  transport: string;
  reason: string;
  detail: string;
  since: Date;
}

/**
 * The configuration failures this process's transports ran into (TLS refused, credentials
 * refused, unknown host), per channel, until a message goes through again. The health check
 * names them: a provider that answers a probe but refuses every message is not healthy.
 */
@Injectable()
export class ProviderFaults {
  private readonly faults = new Map<Channel, ProviderFault>();

  report(channel: Channel, fault: Omit<ProviderFault, 'since'>): void {
    const prev = this.faults.get(channel);
    this.faults.set(channel, { ...fault, since: prev?.reason === fault.reason ? prev.since : new Date() });
  }

  clear(channel: Channel): void {
    this.faults.delete(channel);
  }

  get(channel: Channel): ProviderFault | undefined {
    return this.faults.get(channel);
  }
}
