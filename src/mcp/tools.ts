/**
 * The MCP tools: one entry per archive operation, with the input schema (the REST request schema
 * plus `archive`, with descriptions an agent can act on), the output schema (the REST response,
 * with times as ISO strings), the scope it needs, and the use case it calls (src/app).
 */

import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { UseCases } from "../app";
import * as S from "../contract";
import { fail, ok, type Result } from "../core/errors";

// ------------------------------------------------------------------ times on the way out

/** Fields that hold epoch-ms instants in the payloads the tools return (store rows and REST bodies). */
const TIME_KEYS = new Set([
  "at",
  "as_of",
  "valid_from",
  "valid_to",
  "recorded_at",
  "validFrom",
  "validTo",
  "firstValidFrom",
  "recordedAt",
  "createdAt",
  "updatedAt",
  "deprecatedAt",
  "revokedAt",
  "mergedAt",
  "endAt",
  "lastAccess",
]);

/** A deep copy with every epoch-ms instant under a TIME_KEYS field as an ISO 8601 string (null stays null). */
export function isoTimes<T>(value: T): T {
  if (Array.isArray(value)) return value.map(isoTimes) as T;
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = TIME_KEYS.has(k) && typeof v === "number" && Number.isFinite(v) ? new Date(v).toISOString() : isoTimes(v);
  }
  return out as T;
}

// ------------------------------------------------------------------ shared field descriptions

const archive = S.ArchiveParam.shape.archive.describe(
  "Archive id, e.g. rag-memory. Your API key is valid for one archive only; another archive's id is refused (forbidden).",
);
const asOf = S.Time.optional().describe(
  "Answer as the archive was at this instant: ISO 8601 date (2024-05-23) or date-time (2024-05-23T12:00:00Z; UTC if no offset). Versions not valid then (not yet valid, superseded, deprecated) are invisible. Default: now.",
);
const query = z
  .string()
  .min(1)
  .max(8000)
  .describe(
    "What you need, in natural language (≤ 8000 chars). Names, aliases and identifiers in it (arXiv ids, DOIs, method names) are resolved to entities and seed the graph search.",
  );
const boundaries = S.RouteBody.shape.boundaries.describe(
  'Optional boundary tags the evidence should carry, e.g. ["task:multi-hop-qa", "split:dev"] (≤ 50); chunks carrying them score higher.',
);
const sessionId = S.RouteBody.shape.session_id.describe(
  "Optional session id (your agent session, e.g. s-2025-01-10): chunks this session accessed through route, expand, context or verify seed recency; other sessions never affect your ranking. Without it, no recency seeds.",
);
const chunkId = z.string().min(1).max(512).describe("Chunk id as stored, e.g. arxiv:2405.14831 or note:1.");
const artifactShape = {
  ...S.ArtifactSchema.shape,
  id: S.ArtifactSchema.shape.id.describe(
    "Stable id of the artifact (1-512 chars), e.g. arxiv:2405.14831, repo/path.ts#fn, note:2024-05-damping. Re-using an id versions that chunk.",
  ),
  kind: S.ArtifactSchema.shape.kind.describe("What the artifact is."),
  title: S.ArtifactSchema.shape.title.describe("Title (1-1000 chars); routed on together with the synopsis."),
  synopsis: S.ArtifactSchema.shape.synopsis.describe(
    "Optional summary (≤ 2000 chars); derived when absent (first 3 sentences, ≤ 120 tokens).",
  ),
  content: S.ArtifactSchema.shape.content.describe(
    "Full text of this version (≤ 2 MiB). Cards quote it with exact [start, end) character offsets.",
  ),
  entities: S.ArtifactSchema.shape.entities.describe(
    "Entities the artifact is about or mentions (≤ limit per artifact): {type, id?, name, aliases?}. Canonical ids: arxiv:<id>, doi:<lowercase doi>, else <type>:<slug> (derived from the name when id is absent).",
  ),
  boundaries: S.ArtifactSchema.shape.boundaries.describe(
    "Tags that scope where the evidence holds, e.g. task:multi-hop-qa, split:dev, dataset:hotpotqa (≤ 100).",
  ),
  relations: S.ArtifactSchema.shape.relations.describe(
    "Optional pre-extracted triples (OpenIE): {subject, predicate, object, subject_type?, object_type?} (≤ 500, strings ≤ 300 chars). Subjects and objects become entities of the artifact (type concept unless given or declared) and count toward its entity limit; the triples are kept with the version (see history).",
  ),
  edges: S.ArtifactSchema.shape.edges.describe(
    "Typed links from this artifact to other chunk ids: {type, target, weight? (default 1), valid_from?, valid_to?, context?}. The target need not exist yet.",
  ),
  valid_from: S.Time.optional().describe(
    "When this version becomes valid: ISO 8601 date or date-time. Default: now. Must be after the chunk's current version (else conflict).",
  ),
  source: S.ArtifactSchema.shape.source.describe("Where it came from (URL, file#chars=a-b, ...), ≤ 2000 chars."),
};
const Artifact = z.object(artifactShape).strict();

// ------------------------------------------------------------------ input schemas (archive first)

/** The routing trace is most of a result's size (12,404 of 15,002 characters at budget 900): only on request. */
const includeTrace = z
  .boolean()
  .optional()
  .describe("Also return the routing trace (mentions, seeds, diffusion, router steps, timings); default false.");

/** A result without its trace unless the caller asked for it. */
function traced<T extends { trace?: unknown }>(r: T, include: boolean | undefined): T {
  if (include) return r;
  const { trace: _, ...rest } = r;
  return rest as T;
}

const RouteIn = z
  .object({
    archive,
    query,
    as_of: asOf,
    boundaries,
    limit: S.RouteBody.shape.limit.describe("Max chunks the router selects (1-256, default 32)."),
    session_id: sessionId,
    include_trace: includeTrace,
  })
  .strict();

const ContextIn = z
  .object({
    archive,
    query,
    budget_tokens: S.ContextBody.shape.budget_tokens.describe(
      "Token budget for all cards plus the session window (50-200000), counted exactly in `tokenizer` (default cl100k_base). A card for a ~500-character passage costs ~130-280 tokens; 4000 holds ~19 of them.",
    ),
    as_of: asOf,
    boundaries,
    session_id: S.ContextBody.shape.session_id.describe(
      "Optional session id: its most recent events are returned in short_term and count against the budget, and the chunks it accessed (route, expand, context, verify) seed recency; other sessions never affect your ranking.",
    ),
    max_cards: S.ContextBody.shape.max_cards.describe("Max cards (1-64, default 20)."),
    max_card_tokens: S.ContextBody.shape.max_card_tokens.describe(
      "Max tokens per card (50-4000; default a third of the budget, within 200-400).",
    ),
    short_term_share: S.ContextBody.shape.short_term_share.describe(
      "Share of the budget the session window may take (0-0.9, default 0.25).",
    ),
    tokenizer: S.ContextBody.shape.tokenizer.describe(
      "Encoding the budget is counted in: cl100k_base (default) or o200k_base (GPT-4o and later).",
    ),
    include_trace: includeTrace,
  })
  .strict();

const ExpandIn = z
  .object({
    archive,
    chunks: S.ExpandBody.shape.chunks.describe(
      "1-64 chunks: {id, version?}. Without version: the version valid at as_of; with it: exactly that version.",
    ),
    query: S.ExpandBody.shape.query.describe(
      'Optional: steers which sentences become the claim and the anchors (default "": the chunk\'s opening).',
    ),
    as_of: asOf,
    budget_tokens: S.ExpandBody.shape.budget_tokens.describe(
      "Token budget for all cards (50-200000, default 4000); cards that do not fit are skipped with reason over_budget.",
    ),
    max_card_tokens: S.ExpandBody.shape.max_card_tokens.describe("Max tokens per card (50-4000)."),
    session_id: sessionId,
    tokenizer: S.ExpandBody.shape.tokenizer.describe(
      "Encoding the budget is counted in: cl100k_base (default) or o200k_base (GPT-4o and later).",
    ),
  })
  .strict();

const VerifyIn = z
  .object({
    archive,
    anchors: S.VerifyBody.shape.anchors.describe(
      "1-500 anchors exactly as a card's anchored_spans: {artifact_id, version, start, end, snippet}; start/end are character offsets [start, end) into that version's content.",
    ),
    session_id: sessionId,
  })
  .strict();

const RememberIn = z
  .object({
    archive,
    artifacts: z
      .array(Artifact)
      .min(1)
      .describe("1-200 artifacts, stored atomically: either all of them or none (the error names the first offender)."),
  })
  .strict();

const ReviseIn = z.object({ archive, ...artifactShape }).strict();

const DeprecateIn = z
  .object({
    archive,
    id: chunkId.describe("The chunk to retire."),
    by: S.DeprecateBody.shape.by.describe("Optional successor chunk id: adds a deprecated-by edge from id to it."),
    at: S.Time.optional().describe(
      "When it stops being valid: ISO 8601 date or date-time, after its current version's valid_from. Default: now.",
    ),
    reason: S.DeprecateBody.shape.reason.describe("Optional reason, kept in the history (≤ 2000 chars)."),
  })
  .strict();

const HistoryIn = z
  .object({
    archive,
    chunk: z
      .string()
      .min(1)
      .max(S.MAX_ID)
      .optional()
      .describe("A chunk id: its versions, deprecation and edges. Give this or entity."),
    entity: z
      .string()
      .min(1)
      .max(S.MAX_ID)
      .optional()
      .describe(
        "A canonical entity id (e.g. method:hipporag, arxiv:2405.14831; `resolve` finds it from a name): its aliases, renames, merges and the chunk versions mentioning it.",
      ),
  })
  .strict();

const NeighboursIn = z.object({ archive, chunk: chunkId, as_of: asOf }).strict();

const ResolveIn = z
  .object({
    archive,
    mention: S.ResolveQuery.shape.mention.describe(
      "A name, alias or identifier as written, e.g. HippoRAG, arXiv:2405.14831v2, 10.18653/v1/2020.emnlp-main.550 (≤ 300 chars).",
    ),
    as_of: asOf,
  })
  .strict();

// ------------------------------------------------------------------ output schemas

const Iso = z.string().describe("ISO 8601 date-time (UTC)");
const IsoOrNull = Iso.nullable();

const IngestOut = S.IngestResult.extend({
  recorded_at: Iso.describe("when the batch was recorded (transaction time)"),
});

const ContextOut = S.ContextResponse.extend({
  short_term: z.array(z.object({ role: z.string(), text: z.string(), tokens: z.number(), at: Iso })),
  trace: S.ContextResponse.shape.trace.optional(),
});

const RouteOut = S.RouteResponse.extend({ trace: S.RouteResponse.shape.trace.optional() });

const VerifyOut = z.object({
  all_verified: z.boolean(),
  results: z.array(
    z.object({
      anchor: S.AnchorSchema,
      verified: z.boolean(),
      reason: z.enum(["ok", "snippet_mismatch", "version_not_found", "span_out_of_range"]),
      actual: z.string().optional().describe("the stored text at [start, end) when it differs from the snippet"),
    }),
  ),
});

const DeprecateOut = z.object({ deprecated: z.string(), by: z.string().nullable(), version: z.number() });

const row = (shape: z.ZodRawShape) => z.looseObject(shape);
const HistoryOut = z.object({
  chunk: row({
    chunkId: z.string(),
    kind: z.string(),
    latestVersion: z.number(),
    firstValidFrom: Iso,
    deprecatedAt: IsoOrNull,
    deprecatedBy: z.string().nullable(),
  })
    .optional()
    .describe("chunk history: the chunk"),
  versions: z
    .array(
      row({
        version: z.number(),
        title: z.string(),
        synopsis: z.string(),
        validFrom: Iso,
        validTo: IsoOrNull,
        recordedAt: Iso,
        source: z.string(),
      }),
    )
    .optional()
    .describe("chunk history: every version, oldest first, with its validity [validFrom, validTo)"),
  edges: z
    .array(
      row({
        src: z.string(),
        dst: z.string(),
        type: z.string(),
        weight: z.number(),
        validFrom: Iso,
        validTo: IsoOrNull,
      }),
    )
    .optional()
    .describe("chunk history: edges from or to the chunk"),
  entity: row({ entityId: z.string(), type: z.string(), name: z.string(), mergedInto: z.string().nullable() })
    .optional()
    .describe("entity history: the entity"),
  aliases: z
    .array(row({ alias: z.string(), validFrom: Iso, validTo: IsoOrNull }))
    .optional()
    .describe("entity history: every name with its validity"),
  events: z
    .array(row({ op: z.string(), detail: z.string(), at: Iso }))
    .optional()
    .describe("entity history: created, alias, rename, merged_into, absorbed, deprecated"),
  mentions: z
    .array(z.object({ chunk_id: z.string(), version: z.number(), valid_from: Iso, valid_to: IsoOrNull }))
    .optional()
    .describe("entity history: chunk versions mentioning the entity (≤ 500)"),
});

const NeighboursOut = z.object({
  head: row({
    chunk: z.string(),
    kind: z.string().nullable(),
    latestVersion: z.number(),
    firstValidFrom: IsoOrNull,
    endAt: IsoOrNull.describe("end of validity (deprecation), null if open-ended"),
    deprecated: z.boolean(),
    lastAccess: IsoOrNull,
    accessCount: z.number(),
  }).nullable(),
  neighbours: z.array(
    z.object({
      chunk: z.string(),
      type: z.string().describe("edge type"),
      weight: z.number(),
      direction: z.enum(["in", "out"]).describe("out: this chunk -> neighbour; in: neighbour -> this chunk"),
      visible: z.boolean().describe("whether the neighbour has a version valid at as_of"),
    }),
  ),
});

const ResolveOut = z.object({
  mention: z.string(),
  resolved: z.object({ entity: z.string(), name: z.string(), via: z.string() }).nullable(),
  candidates: z.array(z.object({ entity: z.string(), name: z.string() })).optional(),
});

// ------------------------------------------------------------------ the tool table

export type Scope = "read" | "write";

export interface McpTool {
  name: string;
  title: string;
  description: string;
  scope: Scope;
  input: z.ZodObject;
  output: z.ZodObject;
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
  output: z.ZodObject;
  annotations?: ToolAnnotations;
  run(app: UseCases, archive: string, args: Omit<z.infer<I>, "archive">, caller: Caller): Promise<Result<object>>;
}): McpTool {
  const readOnly = d.scope === "read";
  return {
    ...d,
    annotations: {
      title: d.title,
      readOnlyHint: readOnly,
      destructiveHint: false,
      idempotentHint: readOnly,
      openWorldHint: false,
      ...d.annotations,
    },
    run: async (app, archive, args, caller = {}) => {
      const { archive: _archive, ...rest } = args as z.infer<I> & { archive: string };
      const res = await d.run(app, archive, rest as Omit<z.infer<I>, "archive">, caller);
      return res as Result<Record<string, unknown>>;
    },
  };
}

const done = <T extends object>(v: T) => ok(v);

export const TOOLS: McpTool[] = [
  tool({
    name: "context",
    title: "Evidence within a token budget",
    description:
      "The main retrieval call: route -> expand -> distill. Returns evidence cards that together fit in budget_tokens. " +
      "Each card: artifact_id, version, kind, title, claim_boundary (the sentence that best answers the query), logic_sketch, " +
      "assumptions (validity interval, boundaries, parameter sentences), anchored_spans ({artifact_id, version, start, end, snippet}: exact " +
      "[start, end) character offsets into that version's content; pass them to `verify` before quoting) and tokens. " +
      "Also: as_of (ISO), budget {total, shortTerm, cards, remaining, tokenizer}, skipped chunks with reasons, short_term " +
      "(session events when session_id is given) and, with include_trace, trace (resolved mentions, seeds, candidates, router steps, timings in ms). " +
      "Use as_of to ask what was known/valid at a past time. Read-only.",
    scope: "read",
    input: ContextIn,
    output: ContextOut,
    run: async (app, a, { include_trace, ...args }) => {
      const r = await app.query.context(a, args);
      return done(traced({ ...r, short_term: isoTimes(r.short_term) }, include_trace));
    },
  }),
  tool({
    name: "route",
    title: "Rank chunks without reading them",
    description:
      "Head-only routing (reads no content, cheap): ranks the archive's chunks for a query. Returns candidates " +
      "({chunk, kind, version, score, experts {sem, lex, sym, graph, rec}, mass}; score is the weighted product of the five experts, each in (0, 1]), " +
      "selected (the router's pick: {chunk, version, score, depth, via} where via is the edge type it was reached by, null for a direct hit), " +
      "as_of (ISO) and, with include_trace, trace (mentions, seeds, diffusion mass, router steps, timings in ms). Use it to see what the archive would pick " +
      "and why, or to choose ids for `expand`; use `context` to get evidence to read. Read-only.",
    scope: "read",
    input: RouteIn,
    output: RouteOut,
    run: async (app, a, { include_trace, ...args }) => done(traced(await app.query.route(a, args), include_trace)),
  }),
  tool({
    name: "expand",
    title: "Evidence cards for named chunks",
    description:
      "Evidence cards (same shape as in `context`) for chunks you name, e.g. ids from `route`, `neighbours` or `history`: " +
      "for each, the version valid at as_of (default now) or the exact version given. Returns cards, skipped " +
      "({chunk, reason: not_visible | missing_content | over_budget | version_not_found}) and tokens (total of the cards). Read-only.",
    scope: "read",
    input: ExpandIn,
    output: S.ExpandResponse,
    run: async (app, a, args) => done(await app.query.expand(a, args)),
  }),
  tool({
    name: "verify",
    title: "Check card anchors against stored text",
    description:
      "Re-checks anchors against the stored content: is each snippet exactly the text at [start, end) (character offsets) of " +
      "that artifact version? Pass a card's anchored_spans unchanged. Returns all_verified and per anchor {anchor, verified, " +
      "reason: ok | snippet_mismatch (with actual) | version_not_found | span_out_of_range}. Use before quoting or citing. Read-only.",
    scope: "read",
    input: VerifyIn,
    output: VerifyOut,
    run: async (app, a, args) => done(await app.query.verify(a, args)),
  }),
  tool({
    name: "remember",
    title: "Store artifacts",
    description:
      "Stores artifacts (papers, sections, code units, benchmark rows, notes, decisions, ...) in one atomic batch: 1-200 artifacts, " +
      "content ≤ 2 MiB each; if one fails nothing is stored. A new id creates version 1; a known id with changed content, title, " +
      "synopsis, entities, boundaries or edges creates a new version valid from valid_from; identical input is a no-op. " +
      "Returns results [{id, status: created | updated | unchanged, version}], counts and recorded_at (ISO). Needs a write key.",
    scope: "write",
    input: RememberIn,
    output: IngestOut,
    annotations: { idempotentHint: true },
    run: async (app, a, args) => {
      const res = await app.memory.ingest(a, args.artifacts);
      return res.ok ? done(isoTimes(res.value)) : res;
    },
  }),
  tool({
    name: "revise",
    title: "New version of an existing chunk",
    description:
      "Adds a new version of a chunk that already exists: give the whole artifact (same fields as in `remember`) under its id; " +
      "the new version is valid from valid_from (default now) and the previous one ends there, so as_of queries before it still " +
      "see the old text. Errors: not_found if the chunk does not exist (use `remember`), conflict if valid_from is not after the " +
      "current version's. Returns the same as `remember` (status unchanged if nothing differs). Needs a write key.",
    scope: "write",
    input: ReviseIn,
    output: IngestOut,
    annotations: { idempotentHint: true },
    run: async (app, a, args) => {
      const res = await app.memory.revise(a, args);
      return res.ok ? done(isoTimes(res.value)) : res;
    },
  }),
  tool({
    name: "deprecate",
    title: "Retire a chunk",
    description:
      "Ends a chunk's validity at `at` (default now): queries with as_of at or after it no longer see the chunk; its history " +
      "stays. `by` names the successor (adds a deprecated-by edge). Final: a second deprecation is a conflict. " +
      "Returns {deprecated, by, version (the last version)}. Needs a write key.",
    scope: "write",
    input: DeprecateIn,
    output: DeprecateOut,
    annotations: { destructiveHint: true },
    run: (app, a, args) => app.memory.deprecate(a, args),
  }),
  tool({
    name: "history",
    title: "History of a chunk or an entity",
    description:
      "Give exactly one of chunk or entity. A chunk: {chunk (latestVersion, deprecatedAt/By), versions (oldest first: version, " +
      "title, synopsis, validFrom, validTo, recordedAt, source, hashes), edges (from or to it, with validity)}. An entity: " +
      "{entity, aliases (each name with validFrom/validTo), events (created, alias, rename, merged_into, absorbed, deprecated), " +
      "mentions (chunk versions that mention it, ≤ 500)}. Times are ISO strings. Read-only.",
    scope: "read",
    input: HistoryIn,
    output: HistoryOut,
    run: async (app, a, args) => {
      const res = await app.memory.history(a, args);
      return res.ok ? done(isoTimes(res.value)) : res;
    },
  }),
  tool({
    name: "neighbours",
    title: "A chunk's typed neighbours",
    description:
      "A chunk's head {chunk, kind, latestVersion, firstValidFrom, endAt, deprecated, lastAccess, accessCount} and its bounded " +
      "neighbour table (the heaviest edges, at most 32 per chunk by default) valid at as_of: [{chunk, type (cites, part-of, " +
      "implements, deprecated-by, ...), weight, direction (out: this -> neighbour, in: neighbour -> this), visible (has a version " +
      "valid at as_of)}], heaviest first. Use it to walk citations, parts, implementations and successors. Read-only.",
    scope: "read",
    input: NeighboursIn,
    output: NeighboursOut,
    run: async (app, a, args) => {
      const res = await app.memory.neighbours(a, args);
      return res.ok ? done(isoTimes(res.value)) : res;
    },
  }),
  tool({
    name: "resolve",
    title: "Resolve a name to its entity",
    description:
      "Resolves a mention (a name, alias or identifier as written) to its canonical entity as of as_of (default now): " +
      "{mention, resolved: {entity (canonical id, e.g. method:hipporag), name (its name at as_of), via (how it matched, e.g. " +
      "identifier, alias, alias-historical for a name in use before a rename)} or null when nothing matches; " +
      "an ambiguous name gives resolved null and candidates [{entity, name}]}. Case and diacritics do not matter. " +
      "Use the entity id with `history`. Read-only.",
    scope: "read",
    input: ResolveIn,
    output: ResolveOut,
    run: async (app, a, args) => done(await app.memory.resolve(a, args)),
  }),
  tool({
    name: "forget",
    title: "Delete a chunk or an entity for good",
    description:
      "Hard delete, not deprecation: give exactly one of chunk (the chunk with every version, its edges, its vector and " +
      "content no other version uses) or entity (the entity, its aliases and its mentions in every version; the text stays). " +
      "Afterwards no read returns it, also after a rebuild; an audit row records who deleted what, without content. " +
      "Returns {deleted: {target, id, versions, edges, entities, log_ops, content_objects, vectors}, audit_id}. " +
      "Use `deprecate` to end validity but keep history. Needs write scope.",
    scope: "write",
    input: z
      .object({
        archive,
        chunk: S.ForgetChunkQuery.shape.chunk.optional().describe("The chunk id to delete."),
        entity: S.ForgetEntityQuery.shape.entity.optional().describe("The entity id to delete (with its mentions)."),
      })
      .strict(),
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
];
