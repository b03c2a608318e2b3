import { randomUUID } from 'node:crypto';
import type { Logger } from '@nestjs/common';
import smpp from 'smpp';
import { displayAddress } from '../../api-keys/auth/ip-allow-list.js';
import type { AuthContext } from '../../api-keys/auth/auth-context.js';
import type { SmppCredential } from '../credentials/smpp-credential.store.js';
import type { BindType, BoundSession, BoundSessions } from '../bound-sessions.registry.js';
import type { BindChecker } from '../binds/bind-check.service.js';
import type { BindEntry, BindRegistry } from '../binds/bind.registry.js';
import type { SubmitBucket } from '../binds/submit-bucket.service.js';
import type { SmppSubmitHandler } from '../submit/smpp-submit.handler.js';
import type { SmppSubmitMetrics } from '../submit/smpp-submit.metrics.js';

/** The system_id the server names itself with in bind responses. */
export const SERVER_SYSTEM_ID = 'bulk-messaging';
/** How long an unbind we send waits for its unbind_resp before the socket is closed anyway. */
const UNBIND_WAIT_MS = 2000;
/** How long a closing session waits for the answers of PDUs it has read. */
const ANSWERS_WAIT_MS = 5000;

const BIND_TYPES: Record<string, BindType> = {
  bind_transmitter: 'transmitter',
  bind_receiver: 'receiver',
  bind_transceiver: 'transceiver',
};

/** How often a bound session reads its sender's standing again while it submits. */
const STANDING_MS = 5000;

export interface SessionDeps {
  window: number;
  idleMs: number;
  checker: BindChecker;
  registry: BindRegistry;
  bound: BoundSessions;
  bucket: SubmitBucket;
  submits: SmppSubmitHandler;
  metrics: SmppSubmitMetrics;
  logger: Logger;
  /** Called once the session is closed, bound or not. */
  onClosed: (s: SmppSession) => void;
}

interface Pending {
  resolve: (status: number) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * One customer connection: the bind, then PDUs read up to a window of unanswered ones (beyond
 * it the socket is paused, never a PDU failed), an idle timer, and deliver_sm out with their
 * responses matched. The `smpp` library only parses PDUs; every rule of the session is here.
 */
export class SmppSession implements BoundSession {
  readonly id = randomUUID();
  readonly remoteAddress: string;
  since = new Date();
  private state: 'open' | 'binding' | 'bound' | 'closing' | 'closed' = 'open';
  private bind?: { credential: SmppCredential; auth: AuthContext; type: BindType };
  /** When the bind's standing (account, parent, credential, key) was last read, and a read under way. */
  private standingAt = 0;
  private standingRead?: Promise<boolean>;
  private unanswered = 0;
  private paused = false;
  private idleTimer?: NodeJS.Timeout;
  private readonly pending = new Map<number, Pending>();
  private answered?: () => void;
  private closing?: Promise<void>;
  private left?: Promise<void>;
  private corked = false;

  constructor(
    private readonly session: smpp.Session,
    private readonly deps: SessionDeps,
  ) {
    this.remoteAddress = displayAddress(session.socket.remoteAddress) ?? 'unknown';
    // Without a listener an 'error' (a reset connection) would end the process.
    session.on('error', (err: Error) =>
      deps.logger.debug(`SMPP session ${this.remoteAddress}: ${err.message}`),
    );
    session.on('close', () => this.closed());
    session.on('pdu', (pdu: smpp.PDU) => this.onPdu(pdu));
    this.touch();
  }

  get systemId(): string {
    return this.bind?.credential.systemId ?? '';
  }
  get credentialId(): number {
    return this.bind?.credential.id ?? 0;
  }
  get accountId(): number {
    return Number(this.bind?.credential.accountId ?? 0);
  }
  get mode(): 'live' | 'test' {
    return this.bind?.credential.mode ?? 'live';
  }
  get bindType(): BindType {
    return this.bind?.type ?? 'transceiver';
  }
  get isBound(): boolean {
    return this.state === 'bound';
  }

  /** This bind as the registry lists it. */
  entry(): BindEntry {
    return {
      session: this.id,
      credentialId: this.credentialId,
      systemId: this.systemId,
      type: this.bindType,
      address: this.remoteAddress,
      since: this.since.toISOString(),
      process: this.deps.registry.processName,
    };
  }

  deliverSm(fields: Record<string, unknown>, timeoutMs: number): Promise<number> {
    if (this.state !== 'bound') return Promise.reject(new Error('session not bound'));
    return new Promise<number>((resolve, reject) => {
      const pdu = new smpp.PDU('deliver_sm', fields as smpp.PduParams);
      const written = this.write(pdu, (resp) => {
        const p = this.pending.get(resp.sequence_number);
        if (!p) return;
        clearTimeout(p.timer);
        this.pending.delete(resp.sequence_number);
        p.resolve(resp.command_status);
      });
      if (!written) return reject(new Error('session not writable'));
      const timer = setTimeout(() => {
        this.pending.delete(pdu.sequence_number);
        reject(new Error(`no deliver_sm_resp within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(pdu.sequence_number, { resolve, reject, timer });
    });
  }

  /**
   * Stops reading, lets the PDUs already read be answered, sends an unbind (when bound) and
   * closes the socket.
   */
  close(reason: string): Promise<void> {
    this.closing ??= this.shutDown(reason);
    return this.closing;
  }

  private async shutDown(reason: string): Promise<void> {
    if (this.state === 'closed') return;
    const wasBound = this.state === 'bound';
    this.state = 'closing';
    this.session.pause();
    if (this.unanswered > 0)
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, ANSWERS_WAIT_MS);
        this.answered = () => {
          clearTimeout(t);
          resolve();
        };
      });
    if (wasBound) {
      // Being unbound, it is bound no more: not listed, not counted toward the cap, sent nothing.
      void this.leave();
      this.deps.logger.log(`unbinding ${this.systemId} from ${this.remoteAddress}: ${reason}`);
      // Reading again, or the unbind_resp would never be seen.
      this.session.resume();
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, UNBIND_WAIT_MS);
        const sent = this.session.unbind({}, () => {
          clearTimeout(t);
          resolve();
        });
        if (!sent) {
          clearTimeout(t);
          resolve();
        }
      });
    }
    await new Promise<void>((resolve) => {
      if (this.state === 'closed') return resolve();
      this.session.close(() => resolve());
      // A peer that never acknowledges the FIN does not hold the shutdown.
      setTimeout(() => {
        this.session.destroy();
        resolve();
      }, UNBIND_WAIT_MS).unref();
    });
  }

  private closed(): void {
    if (this.state === 'closed') return;
    const wasBound = !!this.bind;
    this.state = 'closed';
    clearTimeout(this.idleTimer);
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(new Error('session closed'));
    }
    this.pending.clear();
    if (wasBound) this.leave();
    this.deps.onClosed(this);
  }

  /** Whether the bind was given up (the session is unbinding or closed). */
  get gone(): boolean {
    return this.left !== undefined;
  }

  /** Gives the bind up: no longer listed here nor counted toward the cap. Once only. */
  private leave(): Promise<void> {
    if (this.left) return this.left;
    this.deps.bound.remove(this.id);
    this.left = this.deps.registry.release(this.credentialId, this.id).catch(() => undefined);
    return this.left;
  }

  /**
   * Sends a PDU in the same socket write as the others sent in this tick: a group commit
   * answers a whole batch of submits at once, and one write each cost a system call each.
   */
  private write(pdu: smpp.PDU, onResponse?: (resp: smpp.PDU) => void): boolean {
    const socket = this.session.socket;
    if (!this.corked && socket.writable) {
      this.corked = true;
      socket.cork();
      process.nextTick(() => {
        this.corked = false;
        socket.uncork();
      });
    }
    return this.session.send(pdu, onResponse);
  }

  private touch(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => void this.close('idle'), this.deps.idleMs);
    this.idleTimer.unref();
  }

  private onPdu(pdu: smpp.PDU): void {
    this.touch();
    // deliver_sm_resp and unbind_resp are matched by the library's callbacks.
    if (pdu.isResponse() || pdu.command === 'generic_nack') return;
    if (this.state === 'closing' || this.state === 'closed') return;
    this.unanswered++;
    if (this.unanswered >= this.deps.window && !this.paused) {
      this.paused = true;
      this.session.pause();
    }
    this.answer(pdu).then(
      (resp) => this.reply(resp, pdu),
      (err: Error) => {
        this.deps.logger.warn(`SMPP ${pdu.command} from ${this.remoteAddress} failed: ${err.message}`);
        this.reply(pdu.response({ command_status: smpp.ESME_RSYSERR }), pdu);
      },
    );
  }

  private reply(resp: smpp.PDU, pdu: smpp.PDU): void {
    if (this.state !== 'closed') this.write(resp);
    this.unanswered--;
    if (this.paused && this.unanswered < this.deps.window && this.state !== 'closing') {
      this.paused = false;
      this.session.resume();
    }
    if (this.unanswered === 0) this.answered?.();
    if (this.state === 'closed') return;
    if (pdu.command === 'unbind') {
      this.state = 'closing';
      this.session.close();
    } else if (resp.command_status && BIND_TYPES[pdu.command] && this.state === 'open') {
      // A refused bind: nothing more is read from this connection.
      this.state = 'closing';
      this.session.close();
    }
  }

  private async answer(pdu: smpp.PDU): Promise<smpp.PDU> {
    const bindType = BIND_TYPES[pdu.command];
    if (bindType) return this.onBind(pdu, bindType);
    if (pdu.command === 'enquire_link') return pdu.response();
    if (pdu.command === 'unbind') {
      // The slot is free before the client hears the unbind is done, so it may bind again at once.
      if (this.bind) {
        this.state = 'closing';
        await this.leave();
      }
      return pdu.response();
    }
    if (this.state !== 'bound') return pdu.response({ command_status: smpp.ESME_RINVBNDSTS });
    if (pdu.command === 'submit_sm' || pdu.command === 'data_sm') {
      if (this.bind!.type === 'receiver') return pdu.response({ command_status: smpp.ESME_RINVBNDSTS });
      if (!(await this.stillStanding())) {
        this.deps.metrics.count('refused');
        return pdu.response({ command_status: smpp.errors.ESME_RSUBMITFAIL!, message_id: '' });
      }
      const { credential, auth } = this.bind!;
      if (!(await this.deps.bucket.take(credential.id, credential.tps))) {
        this.deps.metrics.count('throttled');
        return pdu.response({ command_status: smpp.ESME_RTHROTTLED, message_id: '' });
      }
      const result = await this.deps.submits.submit(credential, auth, pdu);
      this.deps.metrics.count(
        result.status !== 0 ? 'refused' : 'rejected' in result && result.rejected ? 'rejected' : 'accepted',
      );
      return pdu.response({ command_status: result.status, message_id: result.messageId ?? '' });
    }
    return pdu.response({ command_status: smpp.ESME_RINVCMDID });
  }

  /**
   * A suspension, a revocation or a parent's new limit reaches a bind already made within
   * STANDING_MS: the bind's sender is read again at most that often (one read shared by the
   * submits that wait for it). A bind no longer in good standing has its submit refused and is
   * unbound; a new bind is then refused with the bind's own code.
   */
  private stillStanding(): Promise<boolean> {
    if (Date.now() - this.standingAt < STANDING_MS) return Promise.resolve(true);
    this.standingRead ??= this.deps.checker
      .standingOf(this.bind!.credential.id)
      .then((now) => {
        if (!now.ok) {
          this.deps.logger.log(`unbinding ${this.systemId} from ${this.remoteAddress}: ${now.why}`);
          setImmediate(() => void this.close(now.why));
          return false;
        }
        if (this.bind) this.bind = { ...this.bind, credential: now.credential, auth: now.auth };
        this.standingAt = Date.now();
        return true;
      })
      .finally(() => (this.standingRead = undefined));
    return this.standingRead;
  }

  private async onBind(pdu: smpp.PDU, type: BindType): Promise<smpp.PDU> {
    if (this.state !== 'open') return pdu.response({ command_status: smpp.ESME_RALYBND });
    this.state = 'binding';
    const systemId = (pdu.system_id ?? '').trim();
    const check = await this.deps.checker.check(systemId, pdu.password ?? '', this.remoteAddress);
    if (!check.ok) {
      this.state = 'open';
      this.deps.logger.log(
        `bind of ${systemId || '(empty)'} from ${this.remoteAddress} refused: ${check.why}`,
      );
      return pdu.response({ command_status: check.status, system_id: SERVER_SYSTEM_ID });
    }
    this.bind = { credential: check.credential, auth: check.auth, type };
    this.standingAt = Date.now();
    this.since = new Date();
    const taken = await this.deps.registry.take(this.entry(), check.credential.maxBinds).catch(() => false);
    if (!taken || this.state !== 'binding') {
      if (taken) await this.deps.registry.release(check.credential.id, this.id).catch(() => undefined);
      this.bind = undefined;
      if (this.state === 'binding') this.state = 'open';
      this.deps.logger.log(`bind of ${systemId} from ${this.remoteAddress} refused: max binds reached`);
      return pdu.response({ command_status: smpp.ESME_RBINDFAIL, system_id: SERVER_SYSTEM_ID });
    }
    this.state = 'bound';
    // Listeners hear of the bind once its bind_resp is on its way.
    setImmediate(() => {
      if (this.state === 'bound') this.deps.bound.add(this);
    });
    return pdu.response({ system_id: SERVER_SYSTEM_ID });
  }
}
