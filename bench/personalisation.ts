/**
 * B16: personalised sends and the preview, on the API and account `npm run bench` has set up.
 * A 10,000-recipient SMS whose text has two placeholders filled per recipient (each recipient
 * rendered, measured and priced on its own, its text stored with its message), compared with
 * the plain 10,000-recipient send of B2 in the same run; and the preview of the same request,
 * which stops before the transaction.
 */
import { median, type BenchRow } from './lib.js';

const N = 10_000;

function personalisedBody(base: number) {
  const to = Array.from({ length: N }, (_, i) => String(260_975_000_000 + base + i));
  const variables: Record<string, Record<string, string>> = {};
  to.forEach((n, i) => {
    variables[n] = { first_name: `Customer${i}`, amount: `${(i % 500) + 10}.50` };
  });
  return { from: 'BENCH', to, message: 'Hi {{first_name}}, your balance is {{amount}} ZMW.', variables };
}

async function timed(url: string, body: object, auth: Record<string, string>): Promise<number> {
  const payload = JSON.stringify(body);
  const t0 = performance.now();
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...auth },
    body: payload,
  });
  await res.arrayBuffer();
  const ms = performance.now() - t0;
  if (res.status !== 200) throw new Error(`B16: ${url} answered ${res.status}`);
  return ms;
}

export async function benchPersonalisation(
  api: string,
  auth: Record<string, string>,
  runs: number,
  plainAckMs: number,
): Promise<BenchRow[]> {
  const sms = `${api}/api/v1/json/bulk/sms`;
  await timed(`${sms}/preview`, personalisedBody(0), auth); // warm-up
  const acks: number[] = [];
  const previews: number[] = [];
  for (let i = 0; i < runs; i++) {
    const body = personalisedBody((i + 1) * N);
    previews.push(await timed(`${sms}/preview`, body, auth));
    acks.push(await timed(sms, body, auth));
  }
  const ack = median(acks);
  const preview = median(previews);
  return [
    {
      id: 'B16',
      metric: '10,000-recipient SMS, 2 variables each, ack (median)',
      value: ack,
      unit: 'ms',
      baseline: plainAckMs,
      ratio: plainAckMs / ack,
      bar: '≤ 500 ms',
      ok: ack <= 500,
    },
    {
      id: 'B16',
      metric: '10,000-recipient preview, 2 variables each (median)',
      value: preview,
      unit: 'ms',
      bar: '≤ 300 ms',
      ok: preview <= 300,
    },
  ];
}
