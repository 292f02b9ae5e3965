/**
 * The MCP tools: one entry per archive operation, with the input schema (the REST request schema
 * plus `archive`, described in as few words as an agent needs: tools/list is a fixed cost in every
 * agent's context window, held under 16 KB by a test), the output schema (checked by tests, not
 * listed), the scope it needs, and the use case it calls (src/app).
 */

import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { UseCases } from "../app";
import { codeBytesOf } from "../app/code-context";
import * as S from "../contract";
import { promptCard } from "../core/distill/card";
import { fail, ok, type Result, schemaFailure } from "../core/errors";
import { INGEST_LIMITS } from "../core/ingest";
import { RELATION_LIMITS } from "../core/relations";
import { POOL_MODES } from "../core/research/rank-pool";
import { countTokens, DEFAULT_TOKENIZER } from "../core/text/tokenizer";
import { CHUNK_KINDS, ENTITY_TYPES } from "../core/types";
import { type Op, READ_OPS, runOp, WRITE_OPS } from "./ops";

// ------------------------------------------------------------------ shared fields

// `archive` is explained once, in the server instructions.
const archive = S.ArchiveParam.shape.archive;
// as_of and session_id are explained once, in the server instructions (each description here is paid
// for in every agent's context: the as_of one, repeated in 11 tools, was 500 bytes of tools/list).
const asOf = S.Time.optional();
const query = z.string().min(1).max(8000).describe("What you need, in natural language.");
const boundaries = S.RouteBody.shape.boundaries.describe("Preferred scope tags (split:dev).");
const sessionId = S.RouteBody.shape.session_id;
const chunkId = z.string().min(1).max(S.MAX_ID);
const includeTrace = z.boolean().optional().describe("Adds the routing trace (large).");
// The REST filter, follow and ranking objects (src/contract), so MCP and REST validate alike.
const filter = S.ContextBody.shape.filter.describe(
  "As REST's Filter: kinds, within, cited_by, grounded, min_similarity, ...",
);
const follow = S.ContextBody.shape.follow.describe("Exact neighbours per card over these edge types.");
const ranking = S.ContextBody.shape.ranking.describe("Rank the pool: mode, weights, mmr, lambda, sort, view.");
/** mode and mmr: shorthands for ranking.mode and ranking.mmr (not with ranking). */
const mode = z.enum(POOL_MODES).optional().describe("= ranking.mode.");
const mmr = z.boolean().optional().describe("= ranking.mmr.");

/** `ranking`, or the one the shorthands mode/mmr spell; both at once is a validation failure. */
function rankingOf(a: {
  ranking?: z.infer<typeof ranking>;
  mode?: z.infer<typeof mode>;
  mmr?: boolean | undefined;
}): Result<z.infer<typeof ranking>> {
  const short = a.mode !== undefined || a.mmr !== undefined;
  if (a.ranking && short)
    return fail(
      "validation",
      "give ranking or its shorthands mode/mmr, not both",
      "mode",
      "move mode and mmr into ranking",
    );
  if (!short) return ok(a.ranking);
  const r = S.RankingSchema.safeParse({ mode: a.mode, mmr: a.mmr });
  return r.success ? ok(r.data) : fail("validation", "mode/mmr: not a ranking", "mode");
}

/** Candidates route returns without include_candidates: the first `limit`, 10 by default. */
export const MCP_ROUTE_DEFAULT_LIMIT = 10;
/** The budget's encoding; the default, cl100k_base, is listed first. */
const tokenizer = S.ContextBody.shape.tokenizer;
const cursor = z.string().min(1).max(1024).optional().describe("next_cursor of the previous page.");
const limit = z.number().int().min(1).max(500).optional().describe("Page size (default 50).");

/**
 * An enum listed as a plain string (the server still checks it and names the field and the values):
 * the entity-type list repeated in four places was 340 bytes of tools/list.
 */
const named = <T extends readonly [string, ...string[]]>(values: T) =>
  z
    .string()
    .max(40)
    .pipe(z.enum(values, { error: () => `expected one of ${values.join(", ")}` }));
const entityType = named(ENTITY_TYPES);

/** The artifact as REST takes it; the field names say most of it, descriptions only where they do not. */
const artifactShape = {
  ...S.ArtifactSchema.shape,
  entities: z
    .array(S.EntityInputSchema.extend({ type: entityType }))
    .max(INGEST_LIMITS.maxEntitiesPerArtifact)
    .optional()
    .describe("Entities; id derived from type+name if absent."),
  boundaries: S.ArtifactSchema.shape.boundaries.describe("Scope tags, e.g. split:dev."),
  relations: z
    .array(S.RelationInputSchema.extend({ subject_type: entityType.optional(), object_type: entityType.optional() }))
    .max(RELATION_LIMITS.maxRelationsPerArtifact)
    .optional()
    .describe("Pre-extracted triples."),
  edges: S.ArtifactSchema.shape.edges.describe("Typed links to other chunk ids."),
  valid_from: S.Time.optional().describe("ISO 8601 event time; default now."),
};
const Artifact = z.object(artifactShape).strict();

/** A result without its trace unless the caller asked for it. */
function traced<T extends { trace?: unknown }>(r: T, include: boolean | undefined): T {
  if (include) return r;
  const { trace: _, ...rest } = r;
  return rest as T;
}

// ------------------------------------------------------------------ output schemas (tests check results against them)

const Iso = z.string().describe("ISO 8601 date-time (UTC)");

const IngestOut = S.IngestResult.extend({ recorded_at: Iso });

const PromptAnchorOut = z.object({
  artifact_id: z.string().optional(),
  version: z.number().optional(),
  start: z.number(),
  end: z.number(),
  snippet: z.string().optional(),
});
const PromptCardOut = z.object({
  artifact_id: z.string(),
  version: z.number(),
  kind: z.string(),
  title: z.string().optional(),
  claim_boundary: z.string().optional(),
  logic_sketch: z.string().optional(),
  assumptions: z.array(z.string()).optional(),
  anchored_spans: z.array(PromptAnchorOut),
  relevance: z.number().optional().describe("0-1, comparable across queries: how likely the card is evidence"),
  code: S.CardCode.optional(),
  follow: z.array(z.object({ type: z.string(), direction: z.string(), chunk: z.string() }).loose()).optional(),
});
/** A write's bookmark (remember's answer): read with every change up to it. */
const after = S.RouteBody.shape.after.describe("bookmark of your last write (remember's answer)");

const ContextOut = z.object({
  as_of: Iso,
  freshness: S.FreshnessSchema.optional().describe("with `after`"),
  budget: S.ContextResponse.shape.budget.describe("remaining: budget_tokens less the tokens of this whole result"),
  short_term: z.array(z.object({ role: z.string(), text: z.string(), at: Iso })),
  cards: z.array(PromptCardOut),
  evidence: S.EvidenceSchema.describe("found false: nothing cleared min_relevance, so no cards (say so, do not guess)"),
  omitted: z.number().int().describe("chunks routed to but not in the result (budget, visibility)"),
  code_bytes: z.number().int().optional().describe("with max_code_bytes or code_chunks: code bytes of the cards"),
  code_left_out: z.array(z.string()).optional().describe("with max_code_bytes: code cards no room was left for"),
  skipped: S.ContextResponse.shape.skipped.optional(),
  ranking: S.ContextResponse.shape.ranking,
  trace: S.ContextResponse.shape.trace.optional(),
});

/**
 * Tokens the MCP context result spends outside the cards: as_of, budget, evidence, keys, brackets
 * (~45 measured before `evidence`, which adds ~25 when found). Should the result still be over, the
 * lowest-ranked cards go.
 */
const ENVELOPE_TOKENS = 96;

/**
 * The smallest MCP context budget: the envelope with no cards is ~92 tokens when evidence is found
 * and ~140 when it is not (the note), so a smaller budget could not hold the result it asks for.
 */
export const MCP_MIN_CONTEXT_BUDGET = 160;

const RouteOut = S.RouteResponse.extend({
  candidates_total: z.number().int().describe("candidates in the pool; `candidates` holds the first `limit`"),
});

const VerifyOut = z.object({
  all_verified: z.boolean(),
  results: z.array(
    z.object({
      anchor: S.AnchorSchema.extend({ snippet: z.string().optional() }),
      verified: z.boolean(),
      reason: z.enum(["ok", "snippet_mismatch", "version_not_found", "span_out_of_range"]),
      actual: z.string().optional(),
      text: z.string().optional(),
    }),
  ),
});

const ExportOut = z.object({
  format: z.string(),
  chars: z.number(),
  truncated: z.boolean(),
  text: z.string(),
});

// ------------------------------------------------------------------ the tool table

export type Scope = "read" | "write";

export interface McpTool {
  name: string;
  title: string;
  description: string;
  scope: Scope;
  input: z.ZodObject;
  output: z.ZodType;
  annotations: ToolAnnotations;
  /** args: already parsed by `input`. Returns the structured result (an object) or a typed failure. */
  run(app: UseCases, archive: string, args: unknown, caller?: Caller): Promise<Result<Record<string, unknown>>>;
}

/** Who calls a tool: the request's Authorization header (for audit rows). */
export interface Caller {
  authorization?: string | undefined;
}

function tool<I extends z.ZodObject>(d: {
  name: string;
  title: string;
  description: string;
  scope: Scope;
  input: I;
  output: z.ZodType;
  annotations?: ToolAnnotations;
  run(app: UseCases, archive: string, args: Omit<z.infer<I>, "archive">, caller: Caller): Promise<Result<object>>;
}): McpTool {
  const readOnly = d.scope === "read";
  return {
    ...d,
    // destructiveHint and idempotentHint mean something only for tools that write (MCP spec). Hints
    // equal to the spec's defaults (readOnlyHint false, idempotentHint false) are left out of writes:
    // 270 bytes of tools/list; destructiveHint (default true) and openWorldHint (default true) stay.
    annotations: readOnly
      ? { readOnlyHint: true, openWorldHint: false }
      : { destructiveHint: false, openWorldHint: false, ...d.annotations },
    run: async (app, archive, args, caller = {}) => {
      const { archive: _archive, ...rest } = args as z.infer<I> & { archive: string };
      const res = await d.run(app, archive, rest as Omit<z.infer<I>, "archive">, caller);
      return res as Result<Record<string, unknown>>;
    },
  };
}

const done = <T extends object>(v: T) => ok(v);
const strict = <T extends z.ZodRawShape>(shape: T) => z.object({ archive, ...shape }).strict();

/** The longest export text one call returns (characters); the REST export has no such cap. */
export const MCP_EXPORT_MAX_CHARS = 200_000;

/** An op table's names as the tool's `op` enum. */
const opName = (t: Record<string, Op>) => z.enum(Object.keys(t) as [string, ...string[]]);
const opArgs = z.record(z.string().max(64), z.unknown()).optional().describe("The op's fields; default {}.");

export const TOOLS: McpTool[] = [
  tool({
    name: "context",
    title: "Evidence within a token budget",
    description:
      "Main retrieval: cards within budget_tokens, each a claim anchored at [start,end) of a chunk version " +
      "(anchors omit artifact_id/version if the card's, snippet if the claim). Quote via verify.",
    scope: "read",
    input: strict({
      query,
      budget_tokens: z
        .number()
        .int()
        .min(MCP_MIN_CONTEXT_BUDGET)
        .max(200_000)
        .default(2000)
        .describe(`Whole result, envelope (~90-140 tokens) included; ${MCP_MIN_CONTEXT_BUDGET}-200,000.`),
      as_of: asOf,
      after,
      boundaries,
      session_id: sessionId,
      max_cards: S.ContextBody.shape.max_cards,
      max_card_tokens: S.ContextBody.shape.max_card_tokens,
      short_term_share: S.ContextBody.shape.short_term_share,
      filter,
      follow,
      min_relevance: S.ContextBody.shape.min_relevance,
      min_card_relevance: S.ContextBody.shape.min_card_relevance,
      ranking,
      mode,
      mmr,
      tokenizer,
      include_trace: includeTrace,
      // Listed compactly (tools/list stays within 16 KB); code_chunks is checked as REST's in run.
      max_code_bytes: S.ContextBody.shape.max_code_bytes.describe("xKG code cap (bytes)"),
      code_chunks: z.unknown().optional().describe("xKG code windows: true|{size,overlap,top}"),
    }),
    output: ContextOut,
    run: async (app, a, { include_trace, mode, mmr, ranking: given, code_chunks: chunks, ...args }) => {
      const code = S.ContextBody.shape.code_chunks.safeParse(chunks);
      if (!code.success)
        return {
          ok: false,
          error: schemaFailure(
            code.error.issues.map((i) => ({ ...i, path: ["code_chunks", ...i.path] })),
            { subject: "arguments", hint: "code_chunks: true or {size 50-20000, overlap < size, top 1-50}" },
          ),
        };
      // The whole result, not only the cards, fits budget_tokens (without the trace, which is asked
      // for on top): the cards get the budget less a reserve for the envelope, and should the
      // serialised result still be over, the lowest-ranked cards go.
      const budget = args.budget_tokens ?? 2000;
      const tokenizer = args.tokenizer ?? DEFAULT_TOKENIZER;
      const rk = rankingOf({ ranking: given, mode, mmr });
      if (!rk.ok) return rk;
      const ranking = rk.value;
      const r = await app.query.context(a, {
        ...args,
        ...(code.data !== undefined ? { code_chunks: code.data } : {}),
        ...(ranking ? { ranking } : {}),
        budget_tokens: Math.max(50, budget - ENVELOPE_TOKENS),
      });
      // A card keeps the neighbours `follow` asked for; they count against the budget like the rest.
      const cards = r.cards.map((c) => ({
        ...promptCard(c),
        relevance: c.relevance,
        ...("code" in c && c.code ? { code: c.code } : {}),
        ...(c.follow ? { follow: c.follow } : {}),
      }));
      const short_term = r.short_term.map((e) => ({ role: e.role, text: e.text, at: e.at }));
      // Recently opened chunks of the session (counted in budget.short_term), as their head lines.
      const opened = r.short_term_chunks.map(({ tokens: _t, ...c }) => c);
      const body = () => {
        const cardTokens = cards.length ? countTokens(JSON.stringify(cards), tokenizer) : 0;
        return {
          as_of: r.as_of,
          ...(args.after !== undefined ? { freshness: r.freshness } : {}),
          budget: { total: budget, short_term: r.budget.short_term, cards: cardTokens, remaining: 0, tokenizer },
          short_term,
          ...(opened.length ? { short_term_chunks: opened } : {}),
          cards,
          evidence: r.evidence,
          omitted: r.skipped.length + r.cards.length - cards.length,
          ...("code_bytes" in r ? { code_bytes: codeBytesOf(cards) } : {}),
          ...("code_left_out" in r ? { code_left_out: r.code_left_out } : {}),
        };
      };
      let out = body();
      let used = countTokens(JSON.stringify(out), tokenizer);
      while (used > budget && cards.length > 0) {
        cards.pop();
        out = body();
        used = countTokens(JSON.stringify(out), tokenizer);
      }
      out.budget.remaining = budget - used;
      return done(
        include_trace
          ? { ...out, skipped: r.skipped, ...(r.ranking ? { ranking: r.ranking } : {}), trace: r.trace }
          : out,
      );
    },
  }),
  tool({
    name: "route",
    title: "Rank chunks without reading them",
    description: `Cheap head-only ranking: the top limit (default ${MCP_ROUTE_DEFAULT_LIMIT}) candidates with per-expert scores and the router's selection; ids go to expand.`,
    scope: "read",
    input: strict({
      query,
      as_of: asOf,
      after,
      boundaries,
      limit: S.RouteBody.shape.limit.describe(`Candidates and selections (default ${MCP_ROUTE_DEFAULT_LIMIT}).`),
      session_id: sessionId,
      filter,
      ranking,
      mode,
      mmr,
      include_candidates: z.boolean().optional().describe("Every candidate of the pool (up to 256), not only limit."),
      include_trace: includeTrace,
      code_pairs: z.boolean().optional().describe("xKG: techniques with the code implementing them."),
    }),
    output: z.union([RouteOut, S.CodePairsResult]),
    run: async (app, a, { include_trace, include_candidates, code_pairs, mode, mmr, ranking: given, ...args }) => {
      const rk = rankingOf({ ranking: given, mode, mmr });
      if (!rk.ok) return rk;
      const limit = args.limit ?? MCP_ROUTE_DEFAULT_LIMIT;
      if (!code_pairs) {
        const r = await app.query.route(a, { ...args, limit, ...(rk.value ? { ranking: rk.value } : {}) });
        const candidates = include_candidates ? r.candidates : r.candidates.slice(0, limit);
        return done(traced({ ...r, candidates, candidates_total: r.candidates.length }, include_trace));
      }
      if (given || mode || mmr || args.filter)
        return fail(
          "validation",
          "code_pairs takes no filter or ranking",
          "code_pairs",
          "use research op code_pairs for within/boundaries",
        );
      return app.codePairs.pairs(a, {
        query: args.query,
        as_of: args.as_of,
        limit: Math.min(args.limit ?? 10, 50),
        include_ungrounded: true,
        verify: false,
      });
    },
  }),
  tool({
    name: "expand",
    title: "Evidence cards for named chunks",
    description: "Cards for chunks you name, at the version valid at as_of or the one given.",
    scope: "read",
    input: strict({
      chunks: S.ExpandBody.shape.chunks,
      query: S.ExpandBody.shape.query.describe("Steers which sentences become the claim."),
      as_of: asOf,
      budget_tokens: S.ExpandBody.shape.budget_tokens,
      max_card_tokens: S.ExpandBody.shape.max_card_tokens,
      session_id: sessionId,
      tokenizer,
    }),
    output: S.ExpandResponse.omit({ trace: true }),
    run: async (app, a, args) => {
      const { trace: _, ...r } = await app.query.expand(a, args);
      return done(r);
    },
  }),
  tool({
    name: "verify",
    title: "Check anchors against stored text",
    description: "Is each snippet the exact text at [start,end) of that version? Without snippet: returns that text.",
    scope: "read",
    input: strict({
      anchors: z
        .array(S.AnchorSchema.extend({ snippet: z.string().max(200_000).optional() }))
        .min(1)
        .max(500),
      session_id: sessionId,
    }),
    output: VerifyOut,
    run: async (app, a, args) => {
      const anchors = args.anchors.map((x) => ({ ...x, snippet: x.snippet ?? "" }));
      const r = await app.query.verify(a, { anchors, session_id: args.session_id });
      const results = r.results.map((res, i) => {
        const given = args.anchors[i];
        if (given?.snippet !== undefined) return res;
        // No snippet: "" never equals a non-empty span, so a readable span comes back as snippet_mismatch.
        const { snippet: _, ...anchor } = res.anchor;
        return res.reason === "snippet_mismatch"
          ? { anchor, verified: true, reason: "ok" as const, text: res.actual }
          : { anchor, verified: false, reason: res.reason };
      });
      return done({ all_verified: results.every((x) => x.verified), results });
    },
  }),
  tool({
    name: "remember",
    title: "Store artifacts",
    description:
      "Store 1-200 artifacts, all or none. A known id with changes gets a new version (old ones stay readable as_of); same input: no-op.",
    scope: "write",
    input: strict({
      artifacts: z.array(Artifact).min(1).max(200),
      revise: z.boolean().optional().describe("true: one artifact whose id must exist (else not_found)."),
      near_duplicates: z
        .enum(["add", "revise"])
        .optional()
        .describe("revise: a new id repeating a record of its kind revises it."),
    }),
    output: IngestOut,
    annotations: { idempotentHint: true },
    run: async (app, a, args, caller) => {
      const [first] = args.artifacts;
      if (args.revise && (args.artifacts.length !== 1 || !first))
        return fail(
          "validation",
          "revise takes exactly one artifact",
          "artifacts",
          "send one artifact per revise call",
        );
      if (args.revise && first) return app.memory.revise(a, first);
      return app.memory.ingestBatch(
        a,
        { artifacts: args.artifacts, near_duplicates: args.near_duplicates ?? "add" },
        caller.authorization,
      );
    },
  }),
  tool({
    name: "deprecate",
    title: "Retire a chunk",
    description: "End a chunk's validity at `at` (history kept); `by` names its successor. Final.",
    scope: "write",
    input: strict({
      id: chunkId,
      by: S.DeprecateBody.shape.by,
      at: S.Time.optional().describe("ISO 8601; default now."),
      reason: S.DeprecateBody.shape.reason,
    }),
    output: z.object({ deprecated: z.string(), by: z.string().nullable(), version: z.number() }),
    annotations: { destructiveHint: true },
    run: (app, a, args) => app.memory.deprecate(a, args),
  }),
  tool({
    name: "forget",
    title: "Delete a chunk or an entity for good",
    description: "Hard delete of one chunk (all versions, edges) or entity (and its mentions). Audited.",
    scope: "write",
    input: strict({
      chunk: S.ForgetChunkQuery.shape.chunk.optional(),
      entity: S.ForgetEntityQuery.shape.entity.optional(),
    }),
    output: S.Forgotten,
    annotations: { destructiveHint: true, idempotentHint: false },
    run: async (app, a, args, caller) => {
      if (!args.chunk === !args.entity)
        return fail(
          "validation",
          "give exactly one of chunk or entity",
          "chunk",
          '{"chunk": "<id>"} or {"entity": "<id>"}',
        );
      return args.chunk
        ? app.forget.chunk(a, args.chunk, caller.authorization)
        : app.forget.entity(a, args.entity as string, caller.authorization);
    },
  }),
  tool({
    name: "entity",
    title: "Alias, rename or merge an entity",
    description: "op alias (needs name), rename (needs name), merge (needs into); each from `at` on.",
    scope: "write",
    input: strict({
      op: z.enum(["alias", "rename", "merge"]),
      entity: z.string().min(1).max(S.MAX_ID).describe("Entity id."),
      name: z.string().min(1).max(300).optional(),
      into: z.string().min(1).max(S.MAX_ID).optional().describe("Surviving entity id."),
      at: S.Time.optional().describe("ISO 8601; default now."),
    }),
    output: S.OkResult,
    annotations: { idempotentHint: false },
    run: async (app, a, args) => {
      if (args.op === "merge") {
        if (!args.into) return fail("validation", "merge needs `into`", "into", "the entity id that survives");
        return app.memory.merge(a, { entity: args.entity, into: args.into, at: args.at });
      }
      if (!args.name) return fail("validation", `${args.op} needs \`name\``, "name");
      return args.op === "alias"
        ? app.memory.alias(a, { entity: args.entity, alias: args.name, at: args.at })
        : app.memory.rename(a, { entity: args.entity, new_name: args.name, at: args.at });
    },
  }),
  tool({
    name: "session",
    title: "Append session events",
    description: "Log your session's turns; context with this session_id returns recent ones in short_term.",
    scope: "write",
    input: strict({
      session_id: S.SessionId,
      events: S.SessionEventsBody.shape.events,
    }),
    output: S.SessionAppended,
    annotations: { idempotentHint: false },
    run: (app, a, { session_id, events }) => app.query.appendSession(a, session_id, { events }),
  }),
  tool({
    name: "list",
    title: "List chunks or entities",
    description: "One page in id order; pass next_cursor back. Chunks: as of as_of, filterable.",
    scope: "read",
    input: strict({
      of: z.enum(["chunks", "entities"]),
      kind: named(CHUNK_KINDS).optional(),
      type: entityType.optional(),
      entity: z.string().min(1).max(S.MAX_ID).optional().describe("Chunks mentioning this entity id."),
      boundary: z.string().min(1).max(S.MAX_ID).optional(),
      prefix: z.string().min(1).max(S.MAX_ID).optional().describe("Id prefix."),
      as_of: asOf,
      cursor,
      limit,
    }),
    output: z.union([S.ChunkPage, S.EntityPage]),
    run: (app, a, q) =>
      q.of === "chunks"
        ? app.browse.listChunks(a, {
            kind: q.kind,
            entity: q.entity,
            boundary: q.boundary,
            prefix: q.prefix,
            as_of: q.as_of,
            cursor: q.cursor,
            limit: q.limit ?? 50,
          })
        : app.browse.listEntities(a, { type: q.type, prefix: q.prefix, cursor: q.cursor, limit: q.limit ?? 50 }),
  }),
  tool({
    name: "read",
    title: "Exact content of a chunk version",
    description: "Verbatim text of a version (default: valid at as_of), whole or [start,end); next_start continues.",
    scope: "read",
    input: strict({
      chunk: chunkId,
      version: z.number().int().min(1).optional(),
      as_of: asOf,
      start: z.number().int().min(0).optional(),
      end: z.number().int().min(0).optional(),
      max_chars: z.number().int().min(1).max(S.CONTENT_MAX_CHARS).optional().describe("Default 100000."),
      session_id: sessionId,
    }),
    output: S.ContentSlice,
    run: (app, a, { chunk, ...q }) => app.browse.content(a, chunk, q),
  }),
  tool({
    name: "history",
    title: "History of a chunk or an entity",
    description: "One of chunk (versions, edges, deprecation) or entity (names over time, merges, mentions).",
    scope: "read",
    input: strict({
      chunk: chunkId.optional(),
      entity: z.string().min(1).max(S.MAX_ID).optional().describe("Entity id (see resolve)."),
    }),
    output: S.History,
    run: (app, a, args) => app.memory.history(a, args),
  }),
  tool({
    name: "neighbours",
    title: "A chunk's typed neighbours",
    description: "A chunk's head and heaviest typed edges (cites, part-of, ...) at as_of.",
    scope: "read",
    input: strict({ chunk: chunkId, as_of: asOf }),
    output: S.Neighbours,
    run: (app, a, args) => app.memory.neighbours(a, args),
  }),
  tool({
    name: "resolve",
    title: "Resolve a name to its entity",
    description: "Name, alias or id -> canonical entity as of as_of; ambiguous: candidates listed.",
    scope: "read",
    input: strict({ mention: S.ResolveQuery.shape.mention, as_of: asOf }),
    output: S.Resolved,
    run: async (app, a, args) => done(await app.memory.resolve(a, args)),
  }),
  tool({
    name: "project",
    title: "Project state for a coding agent",
    description:
      "With request: pre-turn brief (committed designs/decisions, modules to preserve/revise/reuse, signatures); else whole state.",
    scope: "read",
    input: strict({
      request: S.BriefBody.shape.request.optional(),
      recent_requests: S.BriefBody.shape.recent_requests,
      as_of: asOf,
      budget_tokens: z
        .number()
        .int()
        .min(100)
        .max(200_000)
        .optional()
        .describe("Default 2000 with request, else 8000."),
      prefix: S.BriefBody.shape.prefix.describe("Code ids under this prefix only."),
      session_id: sessionId,
      context: S.BriefBody.shape.context.describe("With request: the live context; answers restart (B.2)."),
    }),
    output: z.union([S.BriefResult, S.RenderResult]),
    run: async (app, a, { request, recent_requests, budget_tokens, session_id, context, ...rest }) => {
      if (request !== undefined)
        return app.project.brief(a, {
          request,
          recent_requests,
          session_id,
          context,
          budget_tokens: budget_tokens ?? 2000,
          ...rest,
        });
      if (recent_requests !== undefined || session_id !== undefined || context !== undefined)
        return fail(
          "validation",
          `${recent_requests !== undefined ? "recent_requests" : session_id !== undefined ? "session_id" : "context"} needs request`,
          "request",
          "add the upcoming request",
        );
      return app.project.render(a, { budget_tokens: budget_tokens ?? 8000, ...rest });
    },
  }),
  tool({
    name: "annotate",
    title: "Status or counter on a chunk",
    description: "Append an event: value sets key, add adds to it; old values stay readable as_of.",
    scope: "write",
    input: strict({
      chunk: chunkId,
      key: S.AnnotateBody.shape.key,
      value: S.AnnotateBody.shape.value,
      add: S.AnnotateBody.shape.add,
      version: S.AnnotateBody.shape.version,
      reason: S.AnnotateBody.shape.reason,
      at: S.AnnotateBody.shape.at,
      event_id: S.AnnotateBody.shape.event_id.describe("Retry with the same id: no double count."),
    }),
    output: S.Annotated,
    annotations: { idempotentHint: true },
    run: (app, a, { chunk, ...b }, caller) => app.annotations.annotate(a, chunk, b, caller.authorization),
  }),
  tool({
    name: "export",
    title: "Export the archive",
    description: `The archive as of as_of as citations, a table or a graph, cut at max_chars (≤ ${MCP_EXPORT_MAX_CHARS}).`,
    scope: "read",
    input: strict({
      format: z.enum(["bibtex", "csljson", "markdown", "csv", "mermaid", "graphml", "html", "graph-html", "xkg"]),
      paper: z.string().min(1).max(512).optional().describe("xkg: one paper's JSON file."),
      view: z
        .enum(["full", "planning"])
        .optional()
        .describe("xkg: planning = the paper with its techniques, no code nodes."),
      within: z.string().min(1).max(S.MAX_ID).optional().describe("Only this chunk's part-of subtree."),
      collection: z.string().min(1).max(S.MAX_ID).optional().describe("Only this collection's members."),
      as_of: asOf,
      max_chars: z.number().int().min(1).max(MCP_EXPORT_MAX_CHARS).optional(),
    }),
    output: ExportOut,
    run: async (app, a, { format, paper, view, as_of, max_chars, within, collection }) => {
      if (paper !== undefined && format !== "xkg")
        return fail("validation", "paper applies to format xkg only", "paper", "add format: xkg, or drop paper");
      const res = await app.exports.archive(a, { format, as_of, paper, view, within, collection });
      if (!res.ok) return res;
      const text = typeof res.value.body === "string" ? res.value.body : await new Response(res.value.body).text();
      const cap = max_chars ?? MCP_EXPORT_MAX_CHARS;
      return done({ format, chars: text.length, truncated: text.length > cap, text: text.slice(0, cap) });
    },
  }),
  tool({
    name: "research",
    title: "Research memory: reads",
    description:
      "Reads of SGMC, Paper Circle, PaperBench and xKG (op names their REST routes), DIR, grounding, version diff; args: the op's REST request; op schema {op} gives its JSON Schema.",
    scope: "read",
    input: strict({ op: opName(READ_OPS), args: opArgs }),
    output: z.object({}).passthrough(),
    run: (app, a, { op, args }, caller) => runOp(READ_OPS, app, a, op, args, caller.authorization),
  }),
  tool({
    name: "curate",
    title: "Research memory: writes",
    description:
      "Research-memory writes, review, retrieval metrics, model proposals and reviewer reports, a paper's .bbl references (import_bbl); args: the op's REST request (research op schema).",
    scope: "write",
    input: strict({ op: opName(WRITE_OPS), args: opArgs }),
    output: z.object({}).passthrough(),
    run: (app, a, { op, args }, caller) => runOp(WRITE_OPS, app, a, op, args, caller.authorization),
  }),
];
