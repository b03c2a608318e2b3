import { Injectable } from '@nestjs/common';

export type BindType = 'transmitter' | 'receiver' | 'transceiver';

/** A customer's bind in this process, as the rest of the server (receipts included) sees it. */
export interface BoundSession {
  readonly id: string;
  readonly systemId: string;
  readonly credentialId: number;
  readonly accountId: number;
  readonly mode: 'live' | 'test';
  readonly bindType: BindType;
  readonly remoteAddress: string;
  readonly since: Date;
  /** Sends a deliver_sm; resolves with the resp's command_status, rejects on timeout/close. */
  deliverSm(fields: Record<string, unknown>, timeoutMs: number): Promise<number>;
  close(reason: string): Promise<void>;
}

type Listener = (s: BoundSession) => void;

/**
 * The sessions bound in this process (the count across processes is the Redis bind registry's).
 * Listeners hear of each successful bind, so what waits for a receiver can go at once.
 */
@Injectable()
export class BoundSessions {
  private readonly sessions = new Map<string, BoundSession>();
  private readonly listeners: Listener[] = [];
  private readonly closeListeners: Listener[] = [];

  all(): BoundSession[] {
    return [...this.sessions.values()];
  }

  /** Bound as receiver or transceiver. */
  receivers(credentialId: number): BoundSession[] {
    const found: BoundSession[] = [];
    for (const s of this.sessions.values())
      if (s.credentialId === credentialId && s.bindType !== 'transmitter') found.push(s);
    return found;
  }

  /** This process's sessions of one credential, any bind type. */
  ofCredential(credentialId: number): BoundSession[] {
    return this.all().filter((s) => s.credentialId === credentialId);
  }

  /** Fires after a successful bind (any type). */
  onBound(listener: Listener): void {
    this.listeners.push(listener);
  }

  /** Fires once a bound session is gone (unbound, closed, kicked). */
  onUnbound(listener: Listener): void {
    this.closeListeners.push(listener);
  }

  /** Called by the session once its bind_resp went out. */
  add(session: BoundSession): void {
    this.sessions.set(session.id, session);
    for (const l of this.listeners) l(session);
  }

  /** Called by the session when it ends; a session never bound is ignored. */
  remove(id: string): void {
    const session = this.sessions.get(id);
    if (!session) return;
    this.sessions.delete(id);
    for (const l of this.closeListeners) l(session);
  }
}
