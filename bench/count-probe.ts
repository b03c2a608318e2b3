/**
 * Loaded into the API and the baseline app by `npm run bench` (`node --import`), idle until
 * signalled. CPU time per send swings by ±10% between identical runs on a shared 2-core machine;
 * what a process allocates and how many promises it makes for the same requests does not, so
 * B1 also reports those, counted over a fixed number of requests:
 *
 * - 1st SIGWINCH: V8's sampling heap profiler starts, counting objects already collected too;
 * - 2nd: it stops and its total (bytes allocated) is kept; a V8 promise hook starts counting
 *   promises (a separate window, as the hook makes V8 create promises it otherwise elides on
 *   `await`);
 * - 3rd: the hook stops and `{ bytes, promises }` is written to BENCH_COUNT_FILE.
 *
 * SIGWINCH is not among the signals that stop a Nest app.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { promiseHooks } from 'node:v8';

interface SampleNode {
  selfSize: number;
  children: SampleNode[];
}

const out = process.env.BENCH_COUNT_FILE;

function total(node: SampleNode): number {
  let bytes = node.selfSize;
  for (const child of node.children) bytes += total(child);
  return bytes;
}

if (out) {
  let phase = 0;
  let session: Session | undefined;
  let bytes = NaN;
  let promises = 0;
  let stopHook: (() => void) | undefined;
  process.on('SIGWINCH', () => {
    phase++;
    if (phase === 1) {
      session = new Session();
      session.connect();
      session.post('HeapProfiler.enable');
      session.post('HeapProfiler.startSampling', {
        samplingInterval: 16_384,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      });
    } else if (phase === 2) {
      session?.post('HeapProfiler.stopSampling', (err, res) => {
        if (!err) bytes = total(res.profile.head as SampleNode);
        session?.disconnect();
      });
      promises = 0;
      // Typed as Function in @types/node; it is the hook's stop.
      stopHook = promiseHooks.onInit(() => {
        promises++;
      }) as () => void;
    } else if (phase === 3) {
      stopHook?.();
      writeFileSync(out, JSON.stringify({ bytes, promises }));
    }
  });
}
