import { readdirSync } from 'node:fs';
import { setPriority } from 'node:os';

/**
 * Gives the process the CPU niceness `nice` (0 to 19, higher yields more), every thread of it:
 * on Linux a niceness is a thread's own (`setpriority` on a process id of 0 changes the calling
 * thread alone), so each thread listed in /proc/self/task is set; threads started later take
 * their creator's. Elsewhere the process's niceness is set. A process may always lower its own
 * priority; what cannot be set (a thread that ended meanwhile) is passed over.
 */
export function lowerCpuPriority(nice: number): void {
  if (nice <= 0) return;
  let threads: number[];
  try {
    threads = readdirSync('/proc/self/task').map(Number);
  } catch {
    threads = [0];
  }
  for (const thread of threads) {
    try {
      setPriority(thread, nice);
    } catch {
      // ended meanwhile
    }
  }
}
