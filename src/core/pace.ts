/**
 * Pacing long work so other requests run meanwhile. Locally (wrangler dev) the Worker, its Durable
 * Objects and the simulated D1 and R2 share one thread, and workerd takes a new request only when no
 * in-process work is ready to run: a long synchronous stretch (parsing a file, rendering an export)
 * or a long chain of local D1/R2 calls that never waits on the network holds every other request,
 * /healthz included. Work that can grow with its input therefore gives the thread back between
 * slices through a Pause (the Worker passes a zero-delay timer, src/wiring.ts).
 *
 * Two shapes: `pacer`, for loops that already await (a pause every `every` units), and `Sliced`,
 * for synchronous work written as a generator that yields between slices, run to completion at once
 * (`runSync`: same results, no pauses) or with a pause at every yield (`runSliced`). Slices are
 * counted in units of work (records, references, characters), never timed: in workerd the clock
 * stands still while JavaScript runs.
 */

/** Yield the thread so other requests run (the Worker passes a zero-delay timer). */
export type Pause = () => Promise<void>;

/** The pause of code that has none to give (tests, scripts, the CLI). */
export const noPause: Pause = async () => {};

/** Synchronous work that yields (undefined) between slices and returns T. */
export type Sliced<T> = Generator<undefined, T, undefined>;

/** Run sliced work to its end without pausing (the same result as runSliced). */
export function runSync<T>(work: Sliced<T>): T {
  for (;;) {
    const step = work.next();
    if (step.done) return step.value;
  }
}

/** Run sliced work, pausing at each of its yields. */
export async function runSliced<T>(work: Sliced<T>, pause: Pause | undefined): Promise<T> {
  if (!pause) return runSync(work);
  for (;;) {
    const step = work.next();
    if (step.done) return step.value;
    await pause();
  }
}

/**
 * A counter that pauses once `every` units of work have been done since the last pause:
 * `await pace(n)` after each step of n units.
 */
export function pacer(pause: Pause | undefined, every: number): (units?: number) => Promise<void> {
  let done = 0;
  return async (units = 1) => {
    done += units;
    if (done < every || !pause) return;
    done = 0;
    await pause();
  };
}

/** A yield counter for generators: `yield* slice(n)` yields once every `every` units. */
export function slicer(every: number): (units?: number) => Generator<undefined, void, undefined> {
  let done = 0;
  return function* (units = 1) {
    done += units;
    if (done < every) return;
    done = 0;
    yield;
  };
}
