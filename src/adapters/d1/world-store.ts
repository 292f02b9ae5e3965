/**
 * WorldStore: the webhook, source, ingest-log and feed-lookup stores behind one object, as before they
 * were split by aggregate. Every method delegates to the per-aggregate adapter of the same name.
 */
import type { IngestLogStore, SourceStore, WebhookStore, WorldLookup } from "../../core/ports";
import { D1IngestLogStore } from "./ingest-log";
import { type Db, d1Db } from "./queries";
import { D1SourceStore } from "./sources";
import { D1WebhookStore } from "./webhooks";
import { D1WorldLookup } from "./world-lookup";

/** The four stores a WorldStore delegates to. */
export interface WorldParts {
  webhooks: WebhookStore;
  sources: SourceStore;
  log: IngestLogStore;
  world: WorldLookup;
}

export function worldParts(db: Db): WorldParts {
  return {
    webhooks: new D1WebhookStore(db),
    sources: new D1SourceStore(db),
    log: new D1IngestLogStore(db),
    world: new D1WorldLookup(db),
  };
}

export class WorldStore implements WebhookStore, SourceStore, IngestLogStore, WorldLookup {
  readonly #p: WorldParts;

  /** Over a D1 binding, or over stores already built (d1Stores() shares its own). */
  constructor(source: D1Database | WorldParts) {
    this.#p = "prepare" in source ? worldParts(d1Db(source)) : source;
  }

  // ------------------------------------------------------------------ webhooks and deliveries

  putWebhook: WebhookStore["putWebhook"] = (row) => this.#p.webhooks.putWebhook(row);
  getWebhook: WebhookStore["getWebhook"] = (archiveId, name) => this.#p.webhooks.getWebhook(archiveId, name);
  listWebhooks: WebhookStore["listWebhooks"] = (archiveId) => this.#p.webhooks.listWebhooks(archiveId);
  deleteWebhook: WebhookStore["deleteWebhook"] = (archiveId, name) => this.#p.webhooks.deleteWebhook(archiveId, name);
  getDelivery: WebhookStore["getDelivery"] = (archiveId, webhook, deliveryId) =>
    this.#p.webhooks.getDelivery(archiveId, webhook, deliveryId);
  deliveryByBody: WebhookStore["deliveryByBody"] = (archiveId, webhook, bodySha) =>
    this.#p.webhooks.deliveryByBody(archiveId, webhook, bodySha);
  insertDelivery: WebhookStore["insertDelivery"] = (row) => this.#p.webhooks.insertDelivery(row);
  updateDelivery: WebhookStore["updateDelivery"] = (archiveId, webhook, deliveryId, patch) =>
    this.#p.webhooks.updateDelivery(archiveId, webhook, deliveryId, patch);
  stuckDeliveries: WebhookStore["stuckDeliveries"] = (before, limit) => this.#p.webhooks.stuckDeliveries(before, limit);
  deleteDelivery: WebhookStore["deleteDelivery"] = (archiveId, webhook, deliveryId) =>
    this.#p.webhooks.deleteDelivery(archiveId, webhook, deliveryId);
  listDeliveries: WebhookStore["listDeliveries"] = (archiveId, webhook, status, limit) =>
    this.#p.webhooks.listDeliveries(archiveId, webhook, status, limit);

  // ------------------------------------------------------------------ sources

  createSource: SourceStore["createSource"] = (row) => this.#p.sources.createSource(row);
  getSource: SourceStore["getSource"] = (archiveId, id) => this.#p.sources.getSource(archiveId, id);
  listSources: SourceStore["listSources"] = (archiveId) => this.#p.sources.listSources(archiveId);
  updateSource: SourceStore["updateSource"] = (archiveId, id, patch) =>
    this.#p.sources.updateSource(archiveId, id, patch);
  deleteSource: SourceStore["deleteSource"] = (archiveId, id) => this.#p.sources.deleteSource(archiveId, id);
  dueSources: SourceStore["dueSources"] = (now, limit) => this.#p.sources.dueSources(now, limit);
  claimSource: SourceStore["claimSource"] = (archiveId, id, seenNextRun, leaseUntil) =>
    this.#p.sources.claimSource(archiveId, id, seenNextRun, leaseUntil);

  // ------------------------------------------------------------------ ingest log

  appendLog: IngestLogStore["appendLog"] = (row) => this.#p.log.appendLog(row);
  listLog: IngestLogStore["listLog"] = (archiveId, limit, before) => this.#p.log.listLog(archiveId, limit, before);

  // ------------------------------------------------------------------ feed lookups

  tombstoned: WorldLookup["tombstoned"] = (archiveId, ids) => this.#p.world.tombstoned(archiveId, ids);
  recreated: WorldLookup["recreated"] = (archiveId, ids, actor, at) =>
    this.#p.world.recreated(archiveId, ids, actor, at);
  chunksByIds: WorldLookup["chunksByIds"] = (archiveId, ids) => this.#p.world.chunksByIds(archiveId, ids);
  chunkIdsWithPrefix: WorldLookup["chunkIdsWithPrefix"] = (archiveId, prefix, limit) =>
    this.#p.world.chunkIdsWithPrefix(archiveId, prefix, limit);
  paperEntitiesByAliases: WorldLookup["paperEntitiesByAliases"] = (archiveId, aliasNorms) =>
    this.#p.world.paperEntitiesByAliases(archiveId, aliasNorms);
  papersByAliases: WorldLookup["papersByAliases"] = (archiveId, aliasNorms) =>
    this.#p.world.papersByAliases(archiveId, aliasNorms);
  liveEntities: WorldLookup["liveEntities"] = (archiveId, ids) => this.#p.world.liveEntities(archiveId, ids);
  versionsOf: WorldLookup["versionsOf"] = (archiveId, chunkId) => this.#p.world.versionsOf(archiveId, chunkId);
  latestHead: WorldLookup["latestHead"] = (archiveId, chunkId) => this.#p.world.latestHead(archiveId, chunkId);
  aliasNormsOf: WorldLookup["aliasNormsOf"] = (archiveId, entityId) => this.#p.world.aliasNormsOf(archiveId, entityId);
  recordEntityEvent: WorldLookup["recordEntityEvent"] = (archiveId, entityId, op, detail, at) =>
    this.#p.world.recordEntityEvent(archiveId, entityId, op, detail, at);
}
