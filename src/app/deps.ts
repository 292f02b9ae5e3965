/**
 * What the application layer is built from: the kernel service (ingest and queries over the ports),
 * the intake dependencies (world stores, queue, outbound HTTP), the admin key and the clock. The
 * composition root (src/wiring.ts) builds it from `env`; nothing in src/app reads `env`.
 */
import type { AddressGuard } from "../core/net";
import type { Pause } from "../core/pace";
import type {
  AnnotationStore,
  ArchiveStore,
  BlobStore,
  ChatModel,
  Clock,
  EventSink,
  EventStore,
  ExportReader,
  HttpFetch,
  IngestLogStore,
  Reranker,
  SourceStore,
  Stores,
  WebhookStore,
  WorldLookup,
} from "../core/ports";
import type { Kernel } from "./kernel";
import type { QueueMessage } from "./lib/queue";

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

/** What outbound events need: the subscriptions and deliveries, the queue and outbound HTTP (src/app/events.ts). */
export interface EventDeps {
  store: EventStore;
  queue: { send(message: QueueMessage): Promise<void> };
  http: HttpFetch;
  clock: Clock;
  allowHosts: readonly string[];
  /**
   * The DNS check `http` applies to every delivery (core/net addressGuard), applied to a
   * subscription's url when it is put too; null or absent (DNS_RESOLVER=none): names only, as the
   * deliveries then.
   */
  addresses?: AddressGuard | null | undefined;
}

/** The world-side stores the pipelines use (one D1 adapter implements them all). */
export type World = WebhookStore & SourceStore & IngestLogStore & WorldLookup;

export interface IntakeDeps {
  apply: ApplyDeps;
  world: World;
  /** Archive metadata and the paged reads the archive-dump import compares against. */
  archives: ArchiveStore;
  exports: ExportReader;
  /** Raw webhook bodies (R2): kept so a dead letter can be replayed. */
  blobs: BlobStore;
  queue: { send(message: QueueMessage): Promise<void> };
  /** Outbound events (import completed, source run finished, delivery dead). */
  events: EventSink;
  http: HttpFetch;
  sleep: (ms: number) => Promise<void>;
  /**
   * A language model is configured: a README the rules link to no paper is queued for it
   * (`readme_paper` messages, src/app/intake/readme-queue.ts). Absent or false: rules only.
   */
  readmeModel?: boolean | undefined;
  /** Optional GitHub token: 5,000 requests/hour instead of 60, and private repositories. */
  githubToken: string | null;
  /** Contact address for the OpenAlex and Crossref polite pools (mailto=). */
  contactEmail: string | null;
  /** Hosts outbound requests may reach although they are not public (OUTBOUND_ALLOW_HOSTS; local development). */
  allowHosts: readonly string[];
  /**
   * The DNS check every outbound request passes (core/net addressGuard), applied to a source's
   * location when it is registered too; null or absent (DNS_RESOLVER=none, fakes): names only, as
   * the fetches then.
   */
  addresses?: AddressGuard | null | undefined;
  /**
   * Yields the thread between slices of a parse or an apply, so requests that arrive meanwhile
   * start (src/core/pace.ts); absent: the work runs in one go (tests with fakes).
   */
  pause?: Pause | undefined;
}

/** What applying an import plan needs: the kernel, the world stores and where annotations go. */
export interface ApplyDeps {
  kernel: Kernel;
  world: World;
  now: () => number;
  /** Where a plan's annotations go (xKG weights, package lists, positions). */
  annotations: AnnotationStore;
  /** Yields the thread between slices of an apply (src/core/pace.ts); absent: no pauses. */
  pause?: Pause | undefined;
}
