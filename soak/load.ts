import { sleep } from './procs.js';

/** An account of the soak and the key its clients use right now (rotations swap it). */
export interface SoakTenant {
  tag: string;
  username: string;
  password: string;
  keyId: string;
  key: string;
  /** Keys replaced by a rotation: a 401 for a request made with one of these is expected. */
  retired: Set<string>;
}

export type Kind =
  | 'sms'
  | 'sms-replay'
  | 'sms-conflict'
  | 'sms-no-valid'
  | 'sms-poor'
  | 'email'
  | 'chat'
  | 'balance'
  | 'lookup';

interface SmsBody {
  from: string;
  to: string[];
  message: string;
  user_reference_id?: string;
  callback_url?: string;
}

interface Sent {
  tenant: SoakTenant;
  body: SmsBody;
  apiReference: string;
  uuids: string[];
}

/** What the load generator saw, for the summary and the checks. */
export class LoadStats {
  requests = 0;
  /** "200", "402 INSUFFICIENT_BALANCE", …, per kind. */
  readonly answers = new Map<Kind, Map<string, number>>();
  readonly unexpected: Array<{ kind: Kind; answer: string; note?: string }> = [];
  unexpectedCount = 0;
  networkErrors = 0;
  /** 401 answers to requests made with a key that a rotation had replaced by the time of the answer. */
  rotated401 = 0;
  replays = 0;
  replayMismatches = 0;
  skippedTicks = 0;
  readonly latencyMs = new Map<Kind, number[]>();
  /** api_reference → channel and accepted count, of every first (not replayed) 200 answer. */
  readonly acknowledged = new Map<string, { channel: 'sms' | 'email' | 'chat'; accepted: number }>();

  /** Latencies since the last progress line. */
  window: number[] = [];
  /** Requests started before this (freshly started processes: JIT, pools, SMPP binds) keep their latency apart. */
  warmUpUntil = 0;
  readonly warmUpLatencyMs: number[] = [];

  count(kind: Kind, answer: string, ms: number): void {
    this.requests++;
    this.window.push(ms);
    const m = this.answers.get(kind) ?? new Map<string, number>();
    m.set(answer, (m.get(answer) ?? 0) + 1);
    this.answers.set(kind, m);
    if (Date.now() - ms < this.warmUpUntil) {
      this.warmUpLatencyMs.push(ms);
      return;
    }
    const l = this.latencyMs.get(kind) ?? [];
    l.push(ms);
    this.latencyMs.set(kind, l);
  }

  bad(kind: Kind, answer: string, note?: string): void {
    this.unexpectedCount++;
    if (this.unexpected.length < 50) this.unexpected.push({ kind, answer, note });
  }
}

const INVALID = ['12345', '0971234567', 'not-a-number', '+1-2', '99999999999999999'];
const pick = <T>(xs: T[]): T => xs[Math.floor(Math.random() * xs.length)];

/** 60 % 1–3 recipients, 30 % 4–15, 10 % 16–50. */
function recipientCount(): number {
  const r = Math.random();
  if (r < 0.6) return 1 + Math.floor(Math.random() * 3);
  if (r < 0.9) return 4 + Math.floor(Math.random() * 12);
  return 16 + Math.floor(Math.random() * 35);
}

/**
 * The traffic mix, spread over both API processes at a steady rate: SMS sends (1–50
 * recipients, some invalid numbers, some with callback_url, some with a user_reference_id that
 * is later repeated), e-mail and chat sends, balance queries, message look-ups, and sends from
 * an account whose balance runs out. Every SMS recipient number is used once in the whole soak,
 * so a number the SMSC sees twice is a duplicate.
 */
export class Load {
  private seq = 0;
  private number = 0;
  private readonly history: Sent[] = [];
  private inFlight = 0;

  constructor(
    private readonly apis: string[],
    private readonly rich: SoakTenant[],
    private readonly poor: SoakTenant,
    private readonly callbackBase: string,
    readonly stats: LoadStats,
  ) {}

  /** Fires `rps` requests a second until `until`, never more than `maxInFlight` at once; resolves when all have answered. */
  async run(until: number, rps: number, maxInFlight = 40): Promise<void> {
    const interval = 1000 / rps;
    const pending = new Set<Promise<void>>();
    let next = Date.now();
    while (Date.now() < until) {
      if (this.inFlight >= maxInFlight) this.stats.skippedTicks++;
      else {
        const p = this.one().finally(() => pending.delete(p));
        pending.add(p);
      }
      next += interval;
      await sleep(Math.max(0, next - Date.now()));
    }
    await Promise.all(pending);
  }

  private nextNumber(): string {
    return `2609${String(++this.number).padStart(8, '0')}`;
  }

  private smsBody(tenant: SoakTenant, n = recipientCount()): SmsBody {
    const k = ++this.seq;
    const to = Array.from({ length: n }, () => this.nextNumber());
    if (Math.random() < 0.15) to.splice(Math.floor(Math.random() * to.length), 0, pick(INVALID));
    const body: SmsBody = {
      from: 'SOAK',
      to,
      message: `Soak ${k}: your code is ${100000 + Math.floor(Math.random() * 900000)}`,
    };
    if (Math.random() < 0.4) body.user_reference_id = `soak-${process.pid}-${k}`;
    if (Math.random() < 0.3) body.callback_url = `${this.callbackBase}/cb/${tenant.tag}`;
    return body;
  }

  private async one(): Promise<void> {
    this.inFlight++;
    try {
      const r = Math.random();
      const tenant = pick(this.rich);
      const withRef = this.history.length > 0;
      if (r < 0.45) await this.sms('sms', tenant, this.smsBody(tenant));
      else if (r < 0.52 && withRef) await this.replay();
      else if (r < 0.54 && withRef) await this.conflict();
      else if (r < 0.55)
        await this.sms('sms-no-valid', tenant, { from: 'SOAK', to: [pick(INVALID)], message: 'nobody' });
      else if (r < 0.65)
        await this.sms('sms-poor', this.poor, this.smsBody(this.poor, 1 + Math.floor(Math.random() * 5)));
      else if (r < 0.76) await this.email(tenant);
      else if (r < 0.81) await this.chat(tenant);
      else if (r < 0.88) await this.balance(tenant);
      else if (withRef) await this.lookup();
      else await this.balance(tenant);
    } finally {
      this.inFlight--;
    }
  }

  private async call(
    kind: Kind,
    tenant: SoakTenant,
    path: string,
    body?: object,
  ): Promise<{ status: number; json: any; answer: string } | undefined> {
    const key = tenant.key;
    const api = pick(this.apis);
    const t0 = performance.now();
    try {
      const res = await fetch(`${api}${path}`, {
        method: body ? 'POST' : 'GET',
        headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
        signal: AbortSignal.timeout(30_000),
      });
      const text = await res.text();
      let json: any;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      const answer = res.status === 200 ? '200' : `${res.status} ${json?.error?.code ?? '?'}`;
      this.stats.count(kind, answer, performance.now() - t0);
      if (res.status === 401 && tenant.retired.has(key)) {
        this.stats.rotated401++;
        return undefined;
      }
      return { status: res.status, json, answer };
    } catch (err) {
      this.stats.networkErrors++;
      this.stats.count(kind, 'network error', performance.now() - t0);
      this.stats.bad(kind, 'network error', (err as Error).message);
      return undefined;
    }
  }

  private expect(kind: Kind, got: { answer: string } | undefined, ...allowed: string[]): boolean {
    if (!got) return false;
    if (allowed.includes(got.answer)) return got.answer === '200';
    this.stats.bad(kind, got.answer);
    return false;
  }

  private async sms(kind: Kind, tenant: SoakTenant, body: SmsBody): Promise<void> {
    const res = await this.call(kind, tenant, '/api/v1/json/bulk/sms', body);
    const allowed =
      kind === 'sms-poor'
        ? ['200', '402 INSUFFICIENT_BALANCE']
        : kind === 'sms-no-valid'
          ? ['400 VALIDATION_ERROR']
          : ['200'];
    if (!this.expect(kind, res, ...allowed) || kind === 'sms-no-valid') return;
    const data = res!.json.data as Array<{ message_id: string; status: string }>;
    const accepted = data.filter((d) => d.status === 'ACKNOWLEDGED');
    this.stats.acknowledged.set(res!.json.api_reference, { channel: 'sms', accepted: accepted.length });
    if (body.user_reference_id || Math.random() < 0.2) {
      this.history.push({
        tenant,
        body,
        apiReference: res!.json.api_reference,
        uuids: accepted.map((d) => d.message_id),
      });
      if (this.history.length > 500) this.history.splice(0, this.history.length - 500);
    }
  }

  /** The same body and user_reference_id again, on either API: the first answer, nothing new stored. */
  private async replay(): Promise<void> {
    const sent = pick(this.history.filter((h) => h.body.user_reference_id));
    if (!sent) return;
    const res = await this.call('sms-replay', sent.tenant, '/api/v1/json/bulk/sms', sent.body);
    if (!this.expect('sms-replay', res, '200')) return;
    this.stats.replays++;
    if (res!.json.api_reference !== sent.apiReference) {
      this.stats.replayMismatches++;
      this.stats.bad(
        'sms-replay',
        '200',
        `api_reference ${res!.json.api_reference}, first answer ${sent.apiReference}`,
      );
    }
  }

  /** A used user_reference_id with a different body: 409, nothing stored. */
  private async conflict(): Promise<void> {
    const sent = pick(this.history.filter((h) => h.body.user_reference_id));
    if (!sent) return;
    const res = await this.call('sms-conflict', sent.tenant, '/api/v1/json/bulk/sms', {
      ...sent.body,
      message: `${sent.body.message} (changed)`,
    });
    this.expect('sms-conflict', res, '409 DUPLICATE_REFERENCE');
  }

  private async email(tenant: SoakTenant): Promise<void> {
    const to = Array.from(
      { length: 1 + Math.floor(Math.random() * 5) },
      () => `u${++this.number}@soak.example.com`,
    );
    if (Math.random() < 0.1) to.push('not-an-address');
    const res = await this.call('email', tenant, '/api/v1/json/bulk/email', {
      from: 'noreply@soak.example.com',
      to,
      subject: 'Soak',
      email_body: '<p>Hello</p>',
    });
    if (!this.expect('email', res, '200')) return;
    const data = res!.json.data as Array<{ status: string }>;
    this.stats.acknowledged.set(res!.json.api_reference, {
      channel: 'email',
      accepted: data.filter((d) => d.status === 'ACKNOWLEDGED').length,
    });
  }

  private async chat(tenant: SoakTenant): Promise<void> {
    const recipient = Array.from(
      { length: 1 + Math.floor(Math.random() * 3) },
      () => `2605${String(++this.number).padStart(8, '0')}`,
    );
    const res = await this.call('chat', tenant, '/api/v1/json/bulk/chat', {
      username: tenant.username,
      password: tenant.password,
      senderid: 260971000000,
      message: 'Soak chat',
      recipient,
    });
    if (!this.expect('chat', res, '200')) return;
    this.stats.acknowledged.set(res!.json.reference, { channel: 'chat', accepted: res!.json.count });
  }

  private async balance(tenant: SoakTenant): Promise<void> {
    const res = await this.call('balance', tenant, '/api/v1/json/balance', {
      username: tenant.username,
      password: tenant.password,
    });
    if (this.expect('balance', res, '200') && res!.json.status !== 'success')
      this.stats.bad('balance', '200', 'status is not success');
  }

  private async lookup(): Promise<void> {
    const sent = pick(this.history.filter((h) => h.uuids.length));
    if (!sent) return;
    const res = await this.call('lookup', sent.tenant, `/api/v1/json/messages/${pick(sent.uuids)}`);
    this.expect('lookup', res, '200');
  }
}
