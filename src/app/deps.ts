/**
 * What the application layer is built from: the kernel service (ingest and queries over the ports),
 * the intake dependencies (world stores, queue, outbound HTTP), the admin key and the clock. The
 * composition root (src/wiring.ts) builds it from `env`; nothing in src/app reads `env`.
 */
import type { Pause } from "../core/pace";
import type { ChatModel, Clock, Reranker, Stores } from "../core/ports";
import type { EventDeps } from "./events";
import type { IntakeDeps } from "./intake/deps";
import type { Kernel } from "./kernel";

export interface AppDeps {
  kernel: Kernel;
  stores: Stores;
  intake: IntakeDeps;
  /** Outbound event subscribers and their deliveries. */
  events: EventDeps;
  /** The deployment's admin key (a secret); null disables admin access. */
  adminKey: string | null;
  clock: Clock;
  /**
   * The language model the model roles use (extraction at ingest, the seed systems' proposals):
   * `llm` is null unless DISTILLER or EXTRACTOR names a provider; `extractor` says whether
   * EXTRACTOR asks for extraction at ingest (docs/models.md).
   */
  models: { llm: ChatModel | null; extractor: boolean; reranker?: Reranker | null | undefined };
  /**
   * Yields the thread between slices of long work (exports, renders), so requests that arrive
   * meanwhile start (src/core/pace.ts); absent: no pauses (in-process use and tests).
   */
  pause?: Pause | undefined;
}
