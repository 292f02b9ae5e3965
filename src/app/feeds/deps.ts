/** What the webhook, source and import pipelines need: narrow, so tests and the CLI can supply fakes. */
import type { WorldStore } from "../../adapters/d1/world-store";
import type { BlobStore, HttpFetch } from "../../core/ports";
import type { ApplyDeps } from "./apply";

export interface DeliveryMessage {
  archive: string;
  webhook: string;
  delivery: string;
}

export interface FeedDeps {
  apply: ApplyDeps;
  world: WorldStore;
  /** Raw webhook bodies (R2): kept so a dead letter can be replayed. */
  blobs: BlobStore;
  queue: { send(message: DeliveryMessage): Promise<void> };
  http: HttpFetch;
  sleep: (ms: number) => Promise<void>;
  /** Optional GitHub token: 5,000 requests/hour instead of 60, and private repositories. */
  githubToken: string | null;
  /** Contact address for the OpenAlex and Crossref polite pools (mailto=). */
  contactEmail: string | null;
}
