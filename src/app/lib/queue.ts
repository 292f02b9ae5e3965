/**
 * The one queue's messages (inbound webhook deliveries and outbound events), the shape of a
 * delivered message, and the retry schedule both consumers use.
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

/** What the one queue carries: inbound webhook deliveries, outbound events and re-embed pages. */
export type QueueMessage = DeliveryMessage | EventMessage | ReembedMessage;

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
