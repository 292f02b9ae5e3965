/**
 * This process's CPU time (user + system) in milliseconds, for the tests that bound how work grows.
 * Unlike the wall clock it does not count time the scheduler gave other processes, so a loaded
 * machine does not slow the measured side of a ratio alone. The node project runs each test file
 * in its own forked process, one file at a time, so the figure is the code under test plus its
 * garbage collection.
 */
export function cpuNow(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}
