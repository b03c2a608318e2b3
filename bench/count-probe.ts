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
 * - 3rd: the hook stops; the sampling heap profiler starts again, this time forgetting the
 *   objects that a young collection frees;
 * - 4th: after one more young collection, it stops, and `{ bytes, promises, survived }` is
 *   written to BENCH_COUNT_FILE: `survived` counts the bytes that outlived a young collection
 *   (promoted to the old generation, or still there). What survives is what fills the old
 *   generation, and each full collection that follows is a pause for every request in flight.
 *
 * SIGWINCH is not among the signals that stop a Nest app.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { promiseHooks, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

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

/** Starts V8's sampling heap profiler; `young`: count objects a young collection frees too. */
function sample(young: boolean): Session {
  const session = new Session();
  session.connect();
  session.post('HeapProfiler.enable');
  session.post('HeapProfiler.startSampling', {
    samplingInterval: 16_384,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: young,
  });
  return session;
}

/** Stops the sampling and answers the bytes it counted. */
function sampled(session: Session, done: (bytes: number) => void): void {
  session.post('HeapProfiler.stopSampling', (err, res) => {
    done(err ? NaN : total(res.profile.head as SampleNode));
    session.disconnect();
  });
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
      session = sample(true);
    } else if (phase === 2) {
      sampled(session!, (b) => (bytes = b));
      promises = 0;
      // Typed as Function in @types/node; it is the hook's stop.
      stopHook = promiseHooks.onInit(() => {
        promises++;
      }) as () => void;
    } else if (phase === 3) {
      stopHook?.();
      session = sample(false);
    } else if (phase === 4) {
      // The objects of the window's last requests are garbage by now, but still in the young
      // generation: one young collection frees them, so they are not counted as survivors.
      setFlagsFromString('--expose-gc');
      (runInNewContext('gc') as (o: object) => void)({ type: 'minor' });
      sampled(session!, (survived) => writeFileSync(out, JSON.stringify({ bytes, promises, survived })));
    }
  });
}
