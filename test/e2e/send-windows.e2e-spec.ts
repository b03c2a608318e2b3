import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { accountFields } from '../support/account-probes.js';
import { runCli } from '../support/cli-in-process.js';
import { endValidityNow, openWindowsNow } from '../support/clock.js';
import { requestMessages } from '../support/message-probes.js';
import { balanceOf, sendRequestFields } from '../support/probes.js';
import { startTestApp, testEnv, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';

const SMS = '/api/v1/json/bulk/sms';
const EMAIL = '/api/v1/json/bulk/email';
const CHAT = '/api/v1/json/bulk/chat';
const ZAMBIA = '260971234567'; // Africa/Lusaka, UTC+2 all year
const NEW_YORK = '12125550123'; // America/New_York, UTC-5 or -4
const HOUR = 3_600_000;

const hh = (h: number) => `${String(((h % 24) + 24) % 24).padStart(2, '0')}:00`;
/** The local wall-clock time HH:MM of an instant in a zone, as Intl prints it (independent of the service's arithmetic). */
const localTime = (iso: string, zone: string) =>
  new Intl.DateTimeFormat('en-GB', {
    timeZone: zone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(new Date(iso));
const lusakaHour = () => (new Date().getUTCHours() + 2) % 24;
/** A two-hour window open now in Lusaka, and so closed in New York (6 or 7 hours behind). */
const openInLusaka = () => ({ from: hh(lusakaHour() - 1), to: hh(lusakaHour() + 1) });
/** A one-hour window that opens three hours from now in Lusaka. */
const laterInLusaka = () => ({ from: hh(lusakaHour() + 3), to: hh(lusakaHour() + 4) });

const balance = async (t: TestApp, tenant: Tenant) => Number(await balanceOf(t, tenant.account.id));

const messageRows = (t: TestApp, ref: string) =>
  requestMessages(t, ref, 'recipient', 'status', 'reason', 'send_at');

describe('send windows (quiet hours)', () => {
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await startTestApp({
      RUN_WORKERS: 'true',
      SANDBOX_DELIVERY_DELAY_MS: '50',
      SCHEDULE_POLL_MS: '100',
      SWEEP_INTERVAL_MS: '300',
    });
    tenant = await createTenant(t, {
      balances: { sms: '1000', email: '1000', chat: '1000' },
      prices: { sms: '0.25', email: '0.5', chat: '1' },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  const post = (path: string, body: Record<string, unknown>, key = tenant.key) =>
    t.http().post(path).set('X-API-Key', key).send(body);
  const sms = (body: Record<string, unknown>, key = tenant.key) =>
    post(SMS, { from: 'ACME', message: 'quiet please', ...body }, key);

  it("defers, by the recipient's own local time, those whose window is closed: SCHEDULED with send_at, the window's next opening in UTC", async () => {
    const window = openInLusaka();
    const res = await sms({ to: [ZAMBIA, NEW_YORK], send_window: window });
    expect(res.status).toBe(200);
    const [zm, us] = res.body.data;
    expect(zm).toMatchObject({ mobile_number: ZAMBIA, status: 'ACKNOWLEDGED' });
    expect(zm.send_at).toBeUndefined();
    expect(us).toMatchObject({ mobile_number: NEW_YORK, status: 'SCHEDULED' });
    expect(us.send_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:00\.000Z$/);
    const ahead = Date.parse(us.send_at) - Date.now();
    expect(ahead).toBeGreaterThan(0);
    expect(ahead).toBeLessThan(24 * HOUR);
    expect(localTime(us.send_at, 'America/New_York')).toBe(window.from);
    // No request-wide send_at: only the deferred entry carries one.
    expect(res.body.send_at).toBeUndefined();

    const ref = res.body.api_reference;
    const row = await sendRequestFields(t, ref, 'due_at');
    expect(new Date(row.due_at as Date).toISOString()).toBe(us.send_at);
    // The open one goes now; the other waits.
    await waitFor(
      async () => (await messageRows(t, ref))[0]!.status === 'DELIVERED',
      15_000,
      'the open one delivered',
    );
    expect((await messageRows(t, ref))[1]!.status).toBe('SCHEDULED');
    const lookup = await t.http().get(`/api/v1/json/messages/${us.message_id}`).set('X-API-Key', tenant.key);
    expect(lookup.body).toMatchObject({ status: 'SCHEDULED', send_at: us.send_at });

    // When its window opens (its stored time moved to now), the due scanner releases it.
    await openWindowsNow(t, ref);
    await waitFor(
      async () => (await messageRows(t, ref))[1]!.status === 'DELIVERED',
      15_000,
      'the deferred one delivered',
    );
    expect((await sendRequestFields(t, ref, 'due_at')).due_at).toBeNull();
    const metrics = await t.http().get('/metrics');
    expect(metrics.text).toMatch(/bulk_window_deferred_messages_total\{channel="sms"\} [1-9]/);
  });

  it('applies the window from a given send_at, and validity still counts from that send_at', async () => {
    const sendAt = new Date(Date.now() + 2 * 86_400_000);
    sendAt.setUTCMinutes(0, 0, 0);
    const lusakaAtSend = (sendAt.getUTCHours() + 2) % 24;
    const window = { from: hh(lusakaAtSend + 2), to: hh(lusakaAtSend + 3) };
    const res = await sms({
      to: [ZAMBIA],
      send_at: sendAt.toISOString(),
      send_window: window,
      validity_period: 86_400,
    });
    expect(res.status).toBe(200);
    expect(res.body.send_at).toBe(sendAt.toISOString());
    expect(res.body.data[0]).toMatchObject({
      status: 'SCHEDULED',
      send_at: new Date(sendAt.getTime() + 2 * HOUR).toISOString(),
    });
    const row = await sendRequestFields(t, res.body.api_reference, 'valid_until');
    expect(new Date(row.valid_until as Date).toISOString()).toBe(
      new Date(sendAt.getTime() + 86_400_000).toISOString(),
    );
  });

  it('ends EXPIRED and refunded a message whose window opens after its validity ends', async () => {
    const before = await balance(t, tenant);
    const res = await sms({ to: [ZAMBIA], send_window: laterInLusaka(), validity_period: 600 });
    expect(res.body.data[0].status).toBe('SCHEDULED');
    const ref = res.body.api_reference;
    expect(await balance(t, tenant)).toBeCloseTo(before - 0.25, 6);
    // Due at the validity's end (10 minutes), not at the opening (3 hours).
    const row = await sendRequestFields(t, ref, 'due_at', 'valid_until');
    expect(new Date(row.due_at as Date).getTime()).toBe(new Date(row.valid_until as Date).getTime());
    await endValidityNow(t, ref);
    await waitFor(async () => (await messageRows(t, ref))[0]!.status === 'EXPIRED');
    expect((await messageRows(t, ref))[0]!.reason).toBe('VALIDITY_PERIOD_ELAPSED');
    await waitFor(async () => Math.abs((await balance(t, tenant)) - before) < 1e-9);
  });

  it("reschedules into quiet hours by each recipient's own zone: the later of the new send_at and the window's next opening", async () => {
    const TOKYO = '819012345678'; // Asia/Tokyo, UTC+9 all year
    // A day ahead on the hour; the window is open then in Lusaka only (two hours from an hour before).
    const later = new Date(Date.now() + 86_400_000);
    later.setUTCMinutes(0, 0, 0);
    const lusakaThen = (later.getUTCHours() + 2) % 24;
    const window = { from: hh(lusakaThen - 1), to: hh(lusakaThen + 1) };
    // First accepted for two days after that.
    const first = new Date(later.getTime() + 2 * 86_400_000);
    const res = await sms({
      to: [ZAMBIA, NEW_YORK, TOKYO],
      send_at: first.toISOString(),
      send_window: window,
      validity_period: 86_400,
    });
    expect(res.status).toBe(200);
    const ref = res.body.api_reference;
    const stored = await sendRequestFields(t, ref, 'send_window');
    expect(JSON.parse(String(stored.send_window))).toEqual({ ...window, days: null });

    const moved = await post(`/api/v1/json/bulk/${ref}/reschedule`, { send_at: later.toISOString() });
    expect(moved.status).toBe(200);
    expect(moved.body).toEqual({ api_reference: ref, rescheduled: 3, send_at: later.toISOString() });
    const sendAts: string[] = [];
    for (const entry of res.body.data)
      sendAts.push(
        (await t.http().get(`/api/v1/json/messages/${entry.message_id}`).set('X-API-Key', tenant.key)).body
          .send_at,
      );
    const [zm, us, jp] = sendAts;
    // Open in Lusaka at the new time: it goes then.
    expect(zm).toBe(later.toISOString());
    // Closed in New York and Tokyo: each waits for its own zone's opening, the first after the new time.
    for (const [at, zone] of [
      [us!, 'America/New_York'],
      [jp!, 'Asia/Tokyo'],
    ] as const) {
      expect(localTime(at, zone)).toBe(window.from);
      expect(Date.parse(at)).toBeGreaterThan(later.getTime());
      expect(Date.parse(at) - later.getTime()).toBeLessThan(24 * HOUR);
    }
    expect(us).not.toBe(jp);
    const rows = await messageRows(t, ref);
    expect(rows.map((r) => r.status)).toEqual(['SCHEDULED', 'SCHEDULED', 'SCHEDULED']);
    expect(rows[0]!.send_at).toBeNull();
    // Due at the first release; validity counted again from the new send_at as given.
    const req = await sendRequestFields(t, ref, 'send_at', 'due_at', 'valid_until');
    expect(new Date(req.send_at as Date).toISOString()).toBe(later.toISOString());
    expect(new Date(req.due_at as Date).toISOString()).toBe(later.toISOString());
    expect(new Date(req.valid_until as Date).getTime()).toBe(later.getTime() + 86_400_000);
  });

  it("reschedules a request that named no window under the account's, and moves a chat message's fallback with it", async () => {
    const owner = await createTenant(t, {
      balances: { sms: '10', chat: '10' },
      prices: { sms: '0.25', chat: '1' },
    });
    const set = await runCli(testEnv(t.name), [
      'accounts',
      'send-window',
      '--username',
      owner.username,
      '--from',
      '09:00',
      '--to',
      '10:00',
    ]);
    expect(set.code).toBe(0);
    // 09:30 in Lusaka three days ahead: the window is open, so the message goes at send_at.
    const day = new Date(Date.now() + 3 * 86_400_000);
    day.setUTCHours(7, 30, 0, 0);
    const res = await post(
      CHAT,
      {
        username: owner.username,
        password: owner.password,
        senderid: '260970000000',
        message: 'hi',
        recipient: [ZAMBIA],
        send_at: day.toISOString(),
        fallback: { channel: 'sms', after_seconds: 600 },
      },
      owner.key,
    );
    expect(res.status).toBe(200);
    expect(res.body.scheduled).toBeUndefined();
    const ref = res.body.reference;
    expect(await sendRequestFields(t, ref, 'send_window')).toEqual({ send_window: null });

    // To noon in Lusaka the day before: closed until 09:00 the next morning, its own send_at.
    const noon = new Date(day.getTime() - 86_400_000);
    noon.setUTCHours(10, 0, 0, 0);
    const opening = new Date(day);
    opening.setUTCHours(7, 0, 0, 0);
    const moved = await post(
      `/api/v1/json/bulk/${ref}/reschedule`,
      { send_at: noon.toISOString() },
      owner.key,
    );
    expect(moved.body).toEqual({ api_reference: ref, rescheduled: 1, send_at: noon.toISOString() });
    const [row] = await requestMessages(t, ref, 'send_at', 'fallback_due_at');
    expect(new Date(row!.send_at).toISOString()).toBe(opening.toISOString());
    const { due_at } = await sendRequestFields(t, ref, 'due_at');
    expect(new Date(due_at as Date).toISOString()).toBe(opening.toISOString());
    // after_seconds counts from when the message is to go.
    expect(new Date(row!.fallback_due_at).getTime()).toBe(opening.getTime() + 600_000);

    // Moved back into the window: it goes at the new time, its own send_at cleared.
    const back = await post(`/api/v1/json/bulk/${ref}/reschedule`, { send_at: day.toISOString() }, owner.key);
    expect(back.body.rescheduled).toBe(1);
    const [again] = await requestMessages(t, ref, 'send_at', 'fallback_due_at');
    expect(again!.send_at).toBeNull();
    expect(new Date(again!.fallback_due_at).getTime()).toBe(day.getTime() + 600_000);
  });

  it('shows send_at per recipient in the preview, which stores nothing', async () => {
    const res = await post(`${SMS}/preview`, {
      from: 'ACME',
      message: 'quiet please',
      to: [ZAMBIA, NEW_YORK],
      send_window: openInLusaka(),
    });
    expect(res.status).toBe(200);
    const [zm, us] = res.body.recipients;
    expect(zm.status).toBe('ACKNOWLEDGED');
    expect(zm.send_at).toBeUndefined();
    expect(us.status).toBe('SCHEDULED');
    expect(localTime(us.send_at, 'America/New_York')).toBe(openInLusaka().from);
  });

  it('names the deferred chat recipients with their send_at', async () => {
    const res = await post(CHAT, {
      username: tenant.username,
      password: tenant.password,
      senderid: '260970000000',
      message: 'hi',
      recipient: [ZAMBIA, NEW_YORK],
      send_window: openInLusaka(),
    });
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(2);
    expect(res.body.scheduled).toHaveLength(1);
    expect(res.body.scheduled[0].recipient).toBe(NEW_YORK);
    expect(localTime(res.body.scheduled[0].send_at, 'America/New_York')).toBe(openInLusaka().from);
  });

  it('refuses a malformed send_window with 400 VALIDATION_ERROR naming each field, storing nothing', async () => {
    const before = await balance(t, tenant);
    const res = await sms({
      to: [ZAMBIA],
      send_window: { from: '25:00', to: '08:00', days: ['someday'], tz: 'UTC' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual([
      'send_window.days',
      'send_window.from',
      'send_window.tz',
    ]);
    expect(await balance(t, tenant)).toBe(before);
  });

  it("keeps the account's window (CLI), e-mail by the account's zone, and a test key follows it too", async () => {
    const owner = await createTenant(t, { key: { mode: 'test' } });
    // 09:00-10:00 Tokyo on every day but today's and tomorrow's Tokyo weekdays is closed now whatever the hour.
    const tokyoDay = new Intl.DateTimeFormat('en-GB', { timeZone: 'Asia/Tokyo', weekday: 'short' })
      .format(new Date())
      .toLowerCase();
    const week = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
    const i = week.indexOf(tokyoDay);
    const days = week.filter((_, k) => k !== i && k !== (i + 1) % 7);
    const run = await runCli(testEnv(t.name), [
      'accounts',
      'send-window',
      '--username',
      owner.username,
      '--from',
      '09:00',
      '--to',
      '10:00',
      '--days',
      days.join(','),
      '--tz',
      'Asia/Tokyo',
      '--json',
    ]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      username: owner.username,
      send_window: { from: '09:00', to: '10:00', days },
      time_zone: 'Asia/Tokyo',
    });
    const shown = await runCli(testEnv(t.name), ['accounts', 'show', owner.username, '--json']);
    expect(JSON.parse(shown.stdout)).toMatchObject({
      send_window: { from: '09:00', to: '10:00', days },
      time_zone: 'Asia/Tokyo',
    });
    const email = await post(
      EMAIL,
      { from: 'news@example.com', to: ['jane@example.com'], subject: 's', email_body: 'b' },
      owner.key,
    );
    expect(email.status).toBe(200);
    const entry = email.body.data[0];
    expect(entry.status).toBe('SCHEDULED');
    expect(localTime(entry.send_at, 'Asia/Tokyo')).toBe('09:00');
    const weekday = new Intl.DateTimeFormat('en-GB', { timeZone: 'Asia/Tokyo', weekday: 'short' })
      .format(new Date(entry.send_at))
      .toLowerCase();
    expect(week.indexOf(weekday)).toBe((i + 2) % 7);
    // A request's own window replaces the account's: open all day now in Lusaka.
    const own = await sms({ to: [ZAMBIA], send_window: openInLusaka() }, owner.key);
    expect(own.body.data[0].status).toBe('ACKNOWLEDGED');

    const bad = await runCli(testEnv(t.name), [
      'accounts',
      'send-window',
      '--username',
      owner.username,
      '--tz',
      'Mars/Base',
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('IANA');
    const off = await runCli(testEnv(t.name), [
      'accounts',
      'send-window',
      '--username',
      owner.username,
      '--off',
      '--json',
    ]);
    expect(off.code).toBe(0);
    expect(JSON.parse(off.stdout)).toMatchObject({ send_window: null, time_zone: 'Asia/Tokyo' });
    expect((await accountFields(t, { id: owner.account.id }, 'send_window')).send_window).toBeNull();
  });
});
