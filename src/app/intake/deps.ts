/** What the webhook, source and import pipelines need: narrow, so tests and the CLI can supply fakes. */

import type { AddressGuard } from "../../core/net";
import type { Pause } from "../../core/pace";
import type {
  AnnotationStore,
  ArchiveStore,
  BlobStore,
  EventSink,
  ExportReader,
  HttpFetch,
  IngestLogStore,
  SourceStore,
  WebhookStore,
  WorldLookup,
} from "../../core/ports";
import type { Kernel } from "../kernel";
import type { QueueMessage } from "../lib/queue";

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
