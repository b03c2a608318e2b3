import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import { TtlCache } from '../../../platform/caching/ttl-cache.js';
import { AppException } from '../../../platform/errors/app.exception.js';
import { countryOfNumber } from '../../messages/windows/recipient-zone.js';
import {
  conversionTooLow,
  prefixOf,
  PUMPING_WINDOW_MS,
  type BlockKind,
  type Conversion,
  type GuardedSource,
} from './pumping-rules.js';
import { PumpingMetrics } from './pumping.metrics.js';
import { PumpingState, type CapPlace, type PumpingScope } from './pumping-state.service.js';
import { PumpingStore, type PumpingSettings } from './pumping.store.js';

/** What the guard is asked about: one code or reply to one number. */
export interface GuardedSend {
  scope: PumpingScope;
  /** The recipient's digits, as the SMS policy normalised them. */
  number: string;
  source: GuardedSource;
  /** The country's latest decided verifications (verifications only; auto-replies have none). */
  conversion?: (country: string) => Promise<Conversion>;
  /**
   * The caller's own cap, looked at and taken in the same call to Redis as the guard's blocks
   * and count (a verification's per-number cap): when it is full, admit throws CapFull and
   * nothing is counted.
   */
  cap?: CapPlace;
}

/** The caller's cap was full: nothing was counted. `oldestAt`: when its oldest place was taken. */
export class CapFull extends Error {
  constructor(readonly oldestAt: number) {
    super('cap full');
  }
}

/** A send the guard let through and counted; `release` takes it back if it did not go out. */
export interface Admitted {
  release(): Promise<void>;
}

const NOTHING: Admitted = { release: async () => undefined };

/**
 * An account's settings (monitor mode, safe list) are believed this long: `accounts fraud`
 * changes them from another process, and every API process follows within it, as price
 * changes do.
 */
export const PUMPING_SETTINGS_TTL_MS = 1000;
const MAX_ACCOUNTS = 100_000;

/**
 * The traffic-pumping guard in front of verification codes and auto-replies: a fraudster who
 * makes an account send codes to premium ranges is paid per message, so sends bunch on a few
 * prefixes and are never approved. More than PUMPING_PREFIX_LIMIT sends in an hour to one
 * prefix (all but the last 3 digits), or a country whose last 100 decided verifications were
 * under PUMPING_MIN_CONVERSION approved, blocks that prefix or country for the account for an
 * hour: 429 SUSPECTED_PUMPING, before anything is stored or charged. In monitor mode the same
 * verdicts are logged and counted and nothing is refused; safe-listed numbers pass untouched.
 */
@Injectable()
export class PumpingGuard {
  private readonly logger = new Logger('PumpingGuard');
  private readonly settings = new TtlCache<PumpingSettings>(PUMPING_SETTINGS_TTL_MS, MAX_ACCOUNTS);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly store: PumpingStore,
    private readonly state: PumpingState,
    private readonly metrics: PumpingMetrics,
  ) {}

  async admit(send: GuardedSend, now = Date.now()): Promise<Admitted> {
    const { scope, number, source, cap } = send;
    const settings = await this.settings.get(scope.accountId, () => this.store.settings(scope.accountId));
    const safe = settings.safeList.includes(number);
    // A safe-listed number is neither refused nor counted: only the caller's cap is taken.
    if (safe && !cap) return NOTHING;
    const prefix = prefixOf(number);
    const country = countryOfNumber(number);
    const id = randomUUID();
    const admission = await this.state.admit(
      scope,
      { prefix, country, checkBlocks: !settings.monitor && !safe, count: !safe, id, cap },
      now,
    );
    if (admission.outcome === 'capped') throw new CapFull(admission.oldestAt);
    if (admission.outcome === 'blocked') {
      const held = admission.block;
      throw this.refusal(source, held.kind, held.value, held.until.getTime() - now);
    }
    if (safe) return NOTHING;
    const sent = admission.sent;
    const admitted: Admitted = { release: () => this.state.release(scope, prefix, id) };
    let verdict: { kind: BlockKind; value: string; why: string } | null = null;
    if (sent > this.config.pumping.prefixLimit)
      verdict = {
        kind: 'prefix',
        value: prefix,
        why: `${sent} sends to it in an hour, over ${this.config.pumping.prefixLimit}`,
      };
    else if (country && send.conversion) {
      const c = await send.conversion(country);
      if (conversionTooLow(c, this.config.pumping.minConversion))
        verdict = {
          kind: 'country',
          value: country,
          why: `${c.approved} of its last ${c.decided} verifications approved, under ${this.config.pumping.minConversion}`,
        };
    }
    if (!verdict) return admitted;

    const whose = `account ${scope.accountId}${scope.testMode ? ' (test side)' : ''}`;
    this.metrics.blocked(verdict.kind, source, settings.monitor);
    if (settings.monitor) {
      this.logger.warn(
        `monitor mode: would block ${verdict.kind} ${verdict.value} of ${whose} (${verdict.why})`,
      );
      return admitted;
    }
    this.logger.warn(`blocked ${verdict.kind} ${verdict.value} of ${whose} for 1 h (${verdict.why})`);
    await admitted.release();
    await this.state.block(scope, verdict.kind, verdict.value, new Date(now + PUMPING_WINDOW_MS));
    throw this.refusal(source, verdict.kind, verdict.value, PUMPING_WINDOW_MS);
  }

  private refusal(source: GuardedSource, kind: BlockKind, value: string, leftMs: number): AppException {
    this.metrics.refusedOne(source);
    const seconds = Math.max(1, Math.ceil(leftMs / 1000));
    const what = kind === 'prefix' ? `numbers starting ${value}` : `country ${value}`;
    return new AppException(
      'SUSPECTED_PUMPING',
      `Codes to ${what} are blocked for this account for ${seconds} s: ${
        kind === 'prefix'
          ? `more than ${this.config.pumping.prefixLimit} were sent there in an hour`
          : `too few of its verifications were approved`
      } (suspected traffic pumping).`,
      [{ field: 'to', message: `${kind} ${value} blocked` }],
      { 'Retry-After': String(seconds) },
    );
  }
}
