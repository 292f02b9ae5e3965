/**
 * The archive operations behind both the REST handlers and the MCP tools: validated wire input in,
 * the REST response payload (or a typed failure) out. Authorisation is the caller's job.
 *
 * src/http/app.ts and src/mcp/tools.ts both call these, so the two surfaces cannot drift.
 */
import type { z } from "@hono/zod-openapi";
import { fail, ok } from "../core/errors";
import type { PaperGuru } from "../service";
import * as S from "./schemas";

type In<T extends z.ZodType> = z.infer<T>;

/** POST /v1/archives/{a}/ingest */
export function ingestOp(pg: PaperGuru, archive: string, artifacts: In<typeof S.ArtifactSchema>[]) {
  return pg.ingest(archive, artifacts.map(S.toArtifactInput));
}

/** POST /v1/archives/{a}/revise: a new version of a chunk that must already exist. */
export async function reviseOp(pg: PaperGuru, archive: string, artifact: In<typeof S.ArtifactSchema>) {
  if (!(await pg.store.chunkRow(archive, artifact.id)))
    return fail("not_found", `chunk ${artifact.id} does not exist`, "id", "use /ingest to create it");
  return pg.ingest(archive, [S.toArtifactInput(artifact)]);
}

/** POST /v1/archives/{a}/deprecate */
export async function deprecateOp(pg: PaperGuru, archive: string, b: In<typeof S.DeprecateBody>) {
  const res = await pg.deprecate(archive, b.id, b.by ?? null, S.toMs(b.at), b.reason ?? "");
  if (!res.ok) return res;
  return ok({ deprecated: b.id, by: b.by ?? null, version: res.value.version });
}

/** GET /v1/archives/{a}/history?chunk=… | ?entity=… */
export async function historyOp(pg: PaperGuru, archive: string, q: In<typeof S.HistoryQuery>) {
  if (!q.chunk === !q.entity)
    return fail("validation", "give exactly one of chunk or entity", "chunk", "?chunk=<id> or ?entity=<id>");
  const h = q.chunk
    ? await pg.store.chunkHistory(archive, q.chunk)
    : await pg.store.entityHistory(archive, q.entity as string);
  if (!h)
    return fail(
      "not_found",
      `${q.chunk ? "chunk" : "entity"} ${q.chunk ?? q.entity} not found`,
      q.chunk ? "chunk" : "entity",
    );
  return ok(h);
}

/** GET /v1/archives/{a}/neighbours?chunk=…&as_of=… */
export function neighboursOp(pg: PaperGuru, archive: string, q: In<typeof S.ChunkQuery>) {
  return pg.neighbours(archive, q.chunk, S.toMs(q.as_of));
}

/** GET /v1/archives/{a}/resolve?mention=…&as_of=… */
export async function resolveOp(pg: PaperGuru, archive: string, q: In<typeof S.ResolveQuery>) {
  return { mention: q.mention, resolved: await pg.resolve(archive, q.mention, S.toMs(q.as_of)) };
}

/** POST /v1/archives/{a}/route */
export async function routeOp(pg: PaperGuru, archive: string, b: In<typeof S.RouteBody>) {
  const r = await pg.route({
    archiveId: archive,
    query: b.query,
    asOf: S.toMs(b.as_of),
    boundaries: b.boundaries,
    limit: b.limit,
    sessionId: b.session_id,
  });
  return {
    as_of: new Date(r.asOf).toISOString(),
    candidates: r.route.candidates,
    selected: r.route.selected,
    trace: { ...r.route.trace, semantic: r.semantic.slice(0, 20), timings_ms: r.timings },
  };
}

/** POST /v1/archives/{a}/expand */
export async function expandOp(pg: PaperGuru, archive: string, b: In<typeof S.ExpandBody>) {
  const r = await pg.expand({
    archiveId: archive,
    query: b.query,
    chunks: b.chunks.map((x) => ({ chunk: x.id, version: x.version })),
    asOf: S.toMs(b.as_of),
    budgetTokens: b.budget_tokens,
    maxCardTokens: b.max_card_tokens,
    tokenizer: b.tokenizer,
    sessionId: b.session_id,
  });
  return { cards: r.cards, skipped: r.skipped, tokens: r.tokens, trace: { timings_ms: r.timings } };
}

/** The wire /context body -> the service's request (also used by the query-result export). */
export function toContextRequest(archive: string, b: In<typeof S.ContextBody>) {
  return {
    archiveId: archive,
    query: b.query,
    asOf: S.toMs(b.as_of),
    boundaries: b.boundaries,
    budgetTokens: b.budget_tokens,
    sessionId: b.session_id,
    maxCards: b.max_cards,
    maxCardTokens: b.max_card_tokens,
    shortTermShare: b.short_term_share,
    tokenizer: b.tokenizer,
  };
}

/** POST /v1/archives/{a}/context */
export async function contextOp(pg: PaperGuru, archive: string, b: In<typeof S.ContextBody>) {
  const r = await pg.context(toContextRequest(archive, b));
  return {
    as_of: new Date(r.asOf).toISOString(),
    short_term: r.shortTerm,
    cards: r.cards,
    budget: r.budget,
    skipped: r.skipped,
    trace: {
      ...r.route.trace,
      candidates: r.route.candidates.slice(0, 32),
      selected: r.route.selected,
      timings_ms: r.timings,
    },
  };
}

/** POST /v1/archives/{a}/verify */
export async function verifyOp(pg: PaperGuru, archive: string, b: In<typeof S.VerifyBody>) {
  const results = await pg.verify(archive, b.anchors, b.session_id);
  return { all_verified: results.every((r) => r.verified), results };
}
