/**
 * The one queue's messages (inbound webhook deliveries, outbound events, extractions at ingest), the
 * shape of a delivered message, and the retry schedule the consumers use.
 */

export interface DeliveryMessage {
  kind?: undefined;
  archive: string;
  webhook: string;
  delivery: string;
}

/** An outbound event to deliver to one subscriber (src/app/events.ts). */
export interface EventMessage {
  kind: "event";
  archive: string;
  event: string;
}

/** One page of an archive's re-embed (src/app/reembed.ts): the chunk ids after the job's cursor `after`. */
export interface ReembedMessage {
  kind: "reembed";
  archive: string;
  job: number;
  after: string | null;
  ids: string[];
}

/** A version to extract entities and relations from (src/app/extract.ts), sent after its ingest. */
export interface ExtractMessage {
  kind: "extract";
  archive: string;
  chunk: string;
  version: number;
}

/** A session turn to extract commitments from (src/app/project/turns.ts), sent after its events' append. */
export interface CommitmentsMessage {
  kind: "commitments";
  archive: string;
  session: string;
  /** The newest appended event's time (epoch ms). */
  at: number;
}

/** A README version the rules linked to no paper, for the model to name one (src/app/readme-paper.ts). */
export interface ReadmePaperMessage {
  kind: "readme_paper";
  archive: string;
  chunk: string;
  version: number;
}

/** What the one queue carries: inbound webhook deliveries, outbound events, re-embed pages, extractions at ingest, session turns, READMEs. */
export type QueueMessage =
  | DeliveryMessage
  | EventMessage
  | ReembedMessage
  | ExtractMessage
  | CommitmentsMessage
  | ReadmePaperMessage;

/** Where the kernel sends extraction messages, in batches (present only when extraction is on). */
export interface ExtractQueue {
  send(messages: ExtractMessage[]): Promise<void>;
}

export interface QueueMessageLike {
  body: unknown;
  attempts: number;
  ack(): void;
  retry(options?: { delaySeconds?: number }): void;
}

/** Seconds before retry n (1-based): 10, 20, 40, 80 ... capped at 10 minutes. */
export function retryDelaySeconds(attempt: number): number {
  return Math.min(600, 10 * 2 ** Math.max(0, attempt - 1));
}
