/**
 * Ingest from the world: webhook endpoints and their deliveries, sources cron re-ingests, file
 * imports and the ingest log. The pipelines themselves are beside it in src/app/intake.
 */
import * as S from "../../contract";
import { fail, ok, type Result } from "../../core/errors";
import type { DeliveryRecord } from "../../core/ports";
import { validateSourceSpec } from "../../core/sources";
import type { SourceKind } from "../../core/sources/types";
import { actorOf } from "../auth";
import type { AppDeps } from "../deps";
import type { DeliveryMessage, QueueMessageLike } from "../lib/queue";
import { type In, randomId } from "../lib/wire";
import { importBbl } from "./bbl";
import { importFile, importPdf } from "./imports";
import { createSource, dispatchDueSources, runSource, sourceView } from "./sources";
import type { Recreate } from "./tombstones";
import {
  consumeDeliveries,
  receiveWebhook,
  reconcileDeliveries,
  replayDelivery,
  type WebhookHeaders,
  webhookBodyPrefix,
} from "./webhooks";

function deliveryView(r: DeliveryRecord) {
  return {
    webhook: r.webhook,
    delivery: r.deliveryId,
    kind: r.kind,
    event: r.event,
    status: r.status,
    attempts: r.attempts,
    result: r.result,
    error: r.error,
    received_at: new Date(r.receivedAt).toISOString(),
    updated_at: new Date(r.updatedAt).toISOString(),
  };
}

export function webhookUseCases(d: AppDeps) {
  const world = d.intake.world;
  return {
    /** Create or rotate an endpoint; the secret (given or generated) is returned once. */
    async put(archive: string, name: string, b: In<typeof S.CreateWebhook>, origin: string) {
      const secret = b.secret ?? randomId("whsec_", 32);
      await world.putWebhook({
        archiveId: archive,
        name,
        kind: b.kind,
        secret,
        options: b.branches ? { branches: b.branches } : {},
        createdAt: d.clock.now(),
      });
      return {
        name,
        kind: b.kind,
        secret,
        url: `${origin}/v1/archives/${archive}/webhooks/${name}`,
        headers:
          b.kind === "github"
            ? { signature: "X-Hub-Signature-256", delivery: "X-GitHub-Delivery", event: "X-GitHub-Event" }
            : {
                signature: "X-PaperGuru-Signature",
                timestamp: "X-PaperGuru-Timestamp",
                delivery: "X-PaperGuru-Delivery",
              },
      };
    },
    async list(archive: string, origin: string) {
      return {
        webhooks: (await world.listWebhooks(archive)).map((w) => ({
          name: w.name,
          kind: w.kind,
          url: `${origin}/v1/archives/${archive}/webhooks/${w.name}`,
          branches: w.options.branches ?? null,
          created_at: new Date(w.createdAt).toISOString(),
        })),
      };
    },
    async remove(archive: string, name: string): Promise<Result<{ deleted: string }>> {
      if (!(await world.deleteWebhook(archive, name))) return fail("not_found", `no webhook ${name}`, "name");
      // The raw bodies kept for replay go with the endpoint and its deliveries.
      await d.intake.blobs.deletePrefix(webhookBodyPrefix(archive, name));
      return ok({ deleted: name });
    },
    /** A signed delivery: verified over the raw bytes, then queued. */
    receive(archive: string, name: string, headers: WebhookHeaders, raw: Uint8Array) {
      return receiveWebhook(d.intake, archive, name, headers, raw);
    },
    async deliveries(archive: string, name: string, q: In<typeof S.DeliveryQuery>) {
      const rows = await world.listDeliveries(archive, name, q.status, q.limit);
      return { deliveries: rows.map(deliveryView) };
    },
    async delivery(archive: string, name: string, delivery: string) {
      const row = await world.getDelivery(archive, name, delivery);
      if (!row) return fail("not_found", `no delivery ${delivery}`, "delivery");
      return ok(deliveryView(row));
    },
    async replay(archive: string, name: string, delivery: string) {
      const res = await replayDelivery(d.intake, archive, name, delivery);
      return res.ok ? ok({ ...res.value, status: "queued" as const }) : res;
    },
    /** The queue consumer: ingest each delivery, retry with backoff, dead-letter after the last attempt. */
    consume(messages: readonly QueueMessageLike[]) {
      return consumeDeliveries(d.intake, messages);
    },
    /** Cron: enqueue again the deliveries whose queue message was lost (received or queued past the lease). */
    reconcile() {
      return reconcileDeliveries(d.intake);
    },
  };
}

export type { DeliveryMessage };

export function sourceUseCases(d: AppDeps) {
  const world = d.intake.world;
  const find = async (archive: string, id: string) => {
    const row = await world.getSource(archive, id);
    if (!row)
      return fail(
        "not_found",
        `no source ${id} in archive ${archive}`,
        "source",
        `GET /v1/archives/${archive}/sources lists them`,
      );
    return ok(row);
  };
  const get = async (archive: string, id: string) => {
    const row = await find(archive, id);
    return row.ok ? ok(sourceView(row.value)) : row;
  };
  return {
    async create(archive: string, b: In<typeof S.CreateSource>) {
      const res = await createSource(d.intake, archive, b);
      return res.ok ? ok(sourceView(res.value)) : res;
    },
    async list(archive: string) {
      return { sources: (await world.listSources(archive)).map(sourceView) };
    },
    get,
    /** Pause, resume, change the interval or the query (a new query forgets the validators). */
    async patch(archive: string, id: string, b: In<typeof S.PatchSource>) {
      if (b.paused === undefined && b.interval_minutes === undefined && b.query === undefined)
        return fail(
          "validation",
          "nothing to change",
          "body",
          'give at least one of paused, interval_minutes, query, e.g. {"paused": true}',
        );
      const row = await find(archive, id);
      if (!row.ok) return row;
      if (b.query !== undefined) {
        const spec = validateSourceSpec(
          { kind: row.value.kind as SourceKind, location: row.value.location, query: b.query },
          { allowHosts: d.intake.allowHosts },
        );
        if (!spec.ok) return spec;
      }
      await world.updateSource(archive, id, {
        ...(b.paused !== undefined ? { paused: b.paused ? 1 : 0 } : {}),
        ...(b.interval_minutes !== undefined ? { intervalMinutes: b.interval_minutes } : {}),
        // A new query is a new feed: forget the validators so the next run fetches it whole.
        ...(b.query !== undefined ? { query: b.query, etag: null, lastModified: null, contentHash: null } : {}),
        // Resuming makes the source due at the next tick.
        ...(b.paused === false ? { nextRunAt: d.clock.now(), failures: 0 } : {}),
      });
      return get(archive, id);
    },
    async remove(archive: string, id: string): Promise<Result<{ deleted: string }>> {
      if (!(await world.deleteSource(archive, id))) return fail("not_found", `no source ${id}`, "source");
      return ok({ deleted: id });
    },
    /** Run now, outside the schedule: the run's outcome and the source's new status. */
    async run(archive: string, id: string) {
      const row = await find(archive, id);
      if (!row.ok) return row;
      const run = await runSource(d.intake, row.value);
      const after = await get(archive, id);
      return after.ok ? ok({ run, source: after.value }) : after;
    },
    /** Cron: run the due sources in a bounded batch. */
    dispatchDue() {
      return dispatchDueSources(d.intake);
    },
  };
}

/** recreate_deleted=true: the import creates hard-deleted ids again, recorded under the caller's name. */
async function recreateOf(
  d: AppDeps,
  q: In<typeof S.ImportQuery>,
  authorization: string | undefined,
): Promise<Recreate | undefined> {
  return q.recreate_deleted === "true" ? { actor: await actorOf(d, authorization) } : undefined;
}

/** `paper` is format=bbl's, and required there. */
function paperParam(q: In<typeof S.ImportQuery>): Result<string | undefined> {
  if (q.format === "bbl" && q.paper === undefined)
    return fail(
      "validation",
      "paper is required with format=bbl: a .bbl is imported as the reference list of a paper already in the archive",
      "paper",
      "add paper=<chunk id of the citing paper> to the query (CLI: --paper)",
    );
  if (q.format !== "bbl" && q.paper !== undefined)
    return fail(
      "validation",
      `paper applies to format=bbl only, not format=${q.format}`,
      "paper",
      "drop paper, or send a .bbl with format=bbl",
    );
  return ok(q.paper);
}

export function importUseCases(d: AppDeps) {
  return {
    /** A file in one of the import formats; records that fail are listed, the rest is stored. */
    async file(archive: string, q: In<typeof S.ImportQuery>, text: string, authorization?: string | undefined) {
      const paper = paperParam(q);
      if (!paper.ok) return paper;
      if (!text.trim()) return fail("validation", "empty body", "body", "send the file as the body");
      if (q.format === "bbl")
        return importBbl(d, archive, text, {
          paper: paper.value as string,
          name: q.name ?? "upload.bbl",
          validFrom: S.toMs(q.valid_from),
          recreate: await recreateOf(d, q, authorization),
        });
      return importFile(
        d.intake,
        archive,
        q.format,
        text,
        q.name ?? `upload.${q.format}`,
        S.toMs(q.valid_from),
        await recreateOf(d, q, authorization),
      );
    },
    /** A PDF with a text layer: a paper, its sections and captions, every span with its page. */
    async pdf(archive: string, q: In<typeof S.ImportQuery>, bytes: Uint8Array, authorization?: string | undefined) {
      const paper = paperParam(q);
      if (!paper.ok) return paper;
      if (bytes.length === 0) return fail("validation", "empty body", "body", "send the PDF as the body");
      return importPdf(
        d.intake,
        archive,
        bytes,
        q.name ?? "upload.pdf",
        S.toMs(q.valid_from),
        await recreateOf(d, q, authorization),
      );
    },
    /** Ingest runs (webhooks, sources, imports), newest first. */
    async log(archive: string, q: In<typeof S.LogQuery>) {
      const rows = await d.intake.world.listLog(archive, q.limit, q.before);
      return {
        entries: rows.map((r) => ({
          id: r.id,
          origin: r.origin,
          ref: r.ref,
          status: r.status,
          counts: r.counts,
          error: r.error,
          at: new Date(r.at).toISOString(),
          duration_ms: r.durationMs,
        })),
      };
    },
  };
}
