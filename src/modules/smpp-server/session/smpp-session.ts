import { randomUUID } from 'node:crypto';
import smpp from 'smpp';
import { displayAddress } from '../../api-keys/auth/ip-allow-list.js';
import type { BindType, BoundSession, BoundSessions } from '../bound-sessions.registry.js';
import type { BindEntry, BindRegistry } from '../binds/bind.registry.js';
import { DeliverTracker } from './deliver.tracker.js';
import { PduWire } from './pdu.wire.js';
import { ReadWindow } from './read.window.js';
import { SubmitAnswerer, type SessionBind, type SubmitDeps } from './submit.answerer.js';

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

export interface SessionDeps extends SubmitDeps {
  window: number;
  idleMs: number;
  registry: BindRegistry;
  bound: BoundSessions;
  /** Called once the session is closed, bound or not. */
  onClosed: (s: SmppSession) => void;
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
  private bind?: SessionBind;
  private idleTimer?: NodeJS.Timeout;
  private readonly window: ReadWindow;
  private readonly delivers = new DeliverTracker();
  private readonly wire: PduWire;
  private readonly submits: SubmitAnswerer;
  private closing?: Promise<void>;
  private left?: Promise<void>;

  constructor(
    private readonly session: smpp.Session,
    private readonly deps: SessionDeps,
  ) {
    this.remoteAddress = displayAddress(session.socket.remoteAddress) ?? 'unknown';
    this.window = new ReadWindow(deps.window, session);
    this.wire = new PduWire(session);
    this.submits = new SubmitAnswerer(deps, {
      bind: () => this.bind,
      renewed: (credential, auth) => {
        if (this.bind) this.bind = { ...this.bind, credential, auth };
      },
      lost: (why) => void this.close(why),
      who: () => `${this.systemId} from ${this.remoteAddress}`,
    });
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
    return this.delivers.send((pdu, onResponse) => this.wire.write(pdu, onResponse), fields, timeoutMs);
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
    await this.window.drain(ANSWERS_WAIT_MS);
    if (wasBound) {
      // Being unbound, it is bound no more: not listed, not counted toward the cap, sent nothing.
      void this.leave();
      this.deps.logger.log(`unbinding ${this.systemId} from ${this.remoteAddress}: ${reason}`);
      // Reading again, or the unbind_resp would never be seen.
      this.session.resume();
      await this.wire.unbind(UNBIND_WAIT_MS);
    }
    // The peer may have closed the socket while the answers and the unbind were awaited.
    if ((this.state as string) !== 'closed') await this.wire.end(UNBIND_WAIT_MS);
  }

  private closed(): void {
    if (this.state === 'closed') return;
    const wasBound = !!this.bind;
    this.state = 'closed';
    clearTimeout(this.idleTimer);
    this.delivers.closed();
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
    this.window.opened();
    this.answer(pdu).then(
      (resp) => this.reply(resp, pdu),
      (err: Error) => {
        this.deps.logger.warn(`SMPP ${pdu.command} from ${this.remoteAddress} failed: ${err.message}`);
        this.reply(pdu.response({ command_status: smpp.ESME_RSYSERR }), pdu);
      },
    );
  }

  private reply(resp: smpp.PDU, pdu: smpp.PDU): void {
    if (this.state !== 'closed') this.wire.write(resp);
    this.window.answered(this.state === 'closing');
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
    if (pdu.command === 'submit_sm' || pdu.command === 'data_sm') return this.submits.answer(pdu);
    return pdu.response({ command_status: smpp.ESME_RINVCMDID });
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
    this.submits.bound();
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
