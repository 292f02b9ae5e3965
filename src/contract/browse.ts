/**
 * Browsing an archive: chunk and entity listings with cursor pagination, one chunk (head, versions,
 * edges, deprecation), one entity (names over time, events, mentions) and a version's exact content.
 * Public views: snake_case, ISO 8601 times, weights rounded to 4 decimals, no storage internals.
 */
import { z } from "@hono/zod-openapi";
import { CHUNK_KINDS, ENTITY_TYPES } from "../core/types";
import { IdSchema, MAX_ID, PageLimit, queryParam, T0, Time } from "./common";

const Iso = z.string().openapi({ description: "ISO 8601 date-time (UTC)", example: T0 });
const IsoOrNull = Iso.nullable();

/** An opaque page cursor: `next_cursor` of the previous page. */
const Cursor = z
  .string()
  .min(1)
  .max(1024)
  .optional()
  .openapi({
    param: { name: "cursor", in: "query" },
    description: "`next_cursor` of the previous page; omit for the first page.",
  });

/** `?cursor=` and `?limit=` of a listing page. */
const Page = { cursor: Cursor, limit: PageLimit.openapi({ description: "Page size, 1-500 (default 100)." }) };

const tagParam = (name: string, description: string) => queryParam(IdSchema.optional(), name, description);

export const ChunkListQuery = z.object({
  kind: queryParam(z.enum(CHUNK_KINDS).optional(), "kind", "Only chunks of this kind (as of `as_of`)."),
  entity: tagParam(
    "entity",
    "Only chunks whose visible version mentions this canonical entity id, e.g. method:hipporag.",
  ),
  boundary: tagParam("boundary", "Only chunks whose visible version carries this boundary tag, e.g. split:dev."),
  prefix: tagParam("prefix", "Only chunk ids starting with this (case-sensitive), e.g. arxiv:."),
  title_prefix: queryParam(
    z.string().min(1).max(1000).optional(),
    "title_prefix",
    "Only chunks whose title starts with this (ASCII case-insensitive).",
  ),
  as_of: queryParam(
    Time.optional(),
    "as_of",
    "List the archive as it was then: chunks with a version valid at that instant. Default: now.",
  ),
  ...Page,
});

export const ChunkSummary = z
  .object({
    id: z.string(),
    kind: z.string(),
    version: z.number().int().openapi({ description: "The version valid at `as_of`." }),
    latest_version: z.number().int(),
    title: z.string(),
    synopsis: z.string(),
    valid_from: Iso,
    valid_to: IsoOrNull,
    content_chars: z.number().int(),
    boundaries: z.array(z.string()),
    entities: z.array(z.string()).openapi({ description: "Canonical entity ids of the version." }),
    deprecated_at: IsoOrNull,
    deprecated_by: z.string().nullable(),
  })
  .openapi("ChunkSummary");

export const ChunkPage = z
  .object({
    as_of: Iso,
    chunks: z.array(ChunkSummary),
    next_cursor: z
      .string()
      .nullable()
      .openapi({ description: "Pass as `cursor` for the next page; null on the last." }),
  })
  .openapi("ChunkPage", {
    example: {
      as_of: T0,
      chunks: [
        {
          id: "arxiv:2405.14831",
          kind: "paper",
          version: 1,
          latest_version: 1,
          title: "HippoRAG",
          synopsis: "Neurobiologically inspired long-term memory for LLMs.",
          valid_from: T0,
          valid_to: null,
          content_chars: 1840,
          boundaries: ["task:multi-hop-qa"],
          entities: ["arxiv:2405.14831", "method:hipporag"],
          deprecated_at: null,
          deprecated_by: null,
        },
      ],
      next_cursor: null,
    },
  });

export const EntityListQuery = z.object({
  type: queryParam(z.enum(ENTITY_TYPES).optional(), "type", "Only entities of this type."),
  prefix: tagParam("prefix", "Only entity ids starting with this, e.g. method:."),
  merged: queryParam(
    z.enum(["true", "false"]).optional(),
    "merged",
    "true: also list entities merged into another (default false).",
  ),
  ...Page,
});

export const EntitySummary = z
  .object({
    id: z.string(),
    type: z.string(),
    name: z.string().openapi({ description: "Current name." }),
    aliases: z.number().int().openapi({ description: "How many names (current and past) it has had." }),
    merged_into: z.string().nullable(),
    merged_at: IsoOrNull,
    created_at: Iso,
  })
  .openapi("EntitySummary");

export const EntityPage = z
  .object({ entities: z.array(EntitySummary), next_cursor: z.string().nullable() })
  .openapi("EntityPage", {
    example: {
      entities: [
        {
          id: "method:hipporag",
          type: "method",
          name: "HippoRAG",
          aliases: 2,
          merged_into: null,
          merged_at: null,
          created_at: T0,
        },
      ],
      next_cursor: null,
    },
  });

/** `{id}` of a path: a chunk or entity id, percent-encoded. */
const idPath = (description: string, example: string) =>
  z.object({ id: IdSchema.openapi({ param: { name: "id", in: "path" }, description, example }) });

/** `{id}` of /chunks/{id}: percent-encode it (`/` as %2F, `#` as %23). */
export const ChunkIdParam = idPath("Chunk id, percent-encoded (repo/a.ts#f is repo%2Fa.ts%23f).", "arxiv:2405.14831");

export const EntityIdParam = idPath("Canonical entity id, percent-encoded.", "method:hipporag");

/** A triple stored with a chunk version: given with it, or extracted from it at ingest. */
const StoredRelation = z.object({
  subject: z.string(),
  predicate: z.string(),
  object: z.string(),
  subject_type: z.string().optional(),
  object_type: z.string().optional(),
});

export const VersionView = z
  .object({
    version: z.number().int(),
    kind: z.string(),
    title: z.string(),
    synopsis: z.string(),
    valid_from: Iso,
    valid_to: IsoOrNull.openapi({ description: "End of validity: the next version's start or the deprecation." }),
    recorded_at: Iso.openapi({ description: "Transaction time: when PaperGuru stored it." }),
    source: z.string(),
    content_chars: z.number().int(),
    content_sha256: z.string(),
    artifact_sha256: z.string().openapi({
      description: "SHA-256 of the normalised artifact (content and head fields): equal hash, same version.",
    }),
    entities: z.array(z.string()),
    boundaries: z.array(z.string()),
    edges: z
      .array(
        z.object({
          type: z.string(),
          target: z.string(),
          weight: z.number(),
          valid_from: IsoOrNull.optional(),
          valid_to: IsoOrNull.optional(),
          context: z.string().optional(),
        }),
      )
      .openapi({ description: "Edges as this version declared them." }),
    relations: z.array(StoredRelation).openapi({ description: "Triples given with this version (empty when none)." }),
    extracted: z
      .object({
        model: z.string().openapi({ description: "provider:model that extracted it." }),
        at: Iso.openapi({ description: "When the extraction was applied (transaction time)." }),
        entities: z.array(z.string()).openapi({
          description: "Canonical ids of the entities it named (its own and its relations' subjects and objects).",
        }),
        added: z
          .array(z.string())
          .openapi({ description: "Of those, the ones the version's head was not routed by before." }),
        relations: z.array(StoredRelation),
      })
      .nullable()
      .openapi({
        description:
          "What a language model extracted from this version at ingest (EXTRACTOR; docs/models.md); null when nothing was. It extends this version and is not part of its artifact hash.",
      }),
    symbols: z
      .array(
        z.object({
          name: z.string(),
          kind: z.string(),
          signature: z.string(),
          line: z.number().int(),
          exported: z.boolean(),
          start: z.number().int(),
          end: z.number().int(),
        }),
      )
      .openapi({
        description:
          "A code unit's top-level declarations (TS/JS/Python): [start, end) is the exact signature line in this version's content, an anchor `verify` checks.",
      }),
  })
  .openapi("VersionView");

export const EdgeView = z
  .object({
    src: z.string(),
    dst: z.string(),
    type: z.string(),
    weight: z.number(),
    valid_from: Iso,
    valid_to: IsoOrNull,
    version: z.number().int().openapi({ description: "The source version that declared it." }),
    context: z.string().nullable(),
  })
  .openapi("EdgeView");

export const ChunkDetail = z
  .object({
    id: z.string(),
    kind: z.string(),
    latest_version: z.number().int(),
    first_valid_from: Iso,
    deprecated_at: IsoOrNull,
    deprecated_by: z.string().nullable(),
    deprecation_reason: z.string().nullable(),
    versions: z.array(VersionView).openapi({ description: "Every version, oldest first." }),
    edges: z.array(EdgeView).openapi({ description: "Every edge from or to the chunk, with its validity." }),
  })
  .openapi("ChunkDetail", {
    example: {
      id: "decision:cache",
      kind: "decision",
      latest_version: 2,
      first_valid_from: T0,
      deprecated_at: null,
      deprecated_by: null,
      deprecation_reason: null,
      versions: [
        {
          version: 1,
          kind: "decision",
          title: "Cache capital chunks in memory",
          synopsis: "Keep the routing surface in a Durable Object.",
          valid_from: T0,
          valid_to: "2025-01-11T09:30:00.000Z",
          recorded_at: T0,
          source: "",
          content_chars: 120,
          content_sha256: "9f2c…",
          artifact_sha256: "41d7…",
          entities: [],
          boundaries: [],
          edges: [{ type: "motivates", target: "arxiv:2405.14831", weight: 1 }],
          relations: [],
          extracted: null,
          symbols: [],
        },
      ],
      edges: [
        {
          src: "decision:cache",
          dst: "arxiv:2405.14831",
          type: "motivates",
          weight: 1,
          valid_from: T0,
          valid_to: null,
          version: 1,
          context: null,
        },
      ],
    },
  });

/** An entity as GET …/entities/{id} answers it (also the example of GET …/history?entity=). */
export const ENTITY_DETAIL_EXAMPLE = {
  id: "method:hipporag",
  type: "method",
  name: "HippoRAG",
  merged_into: null,
  merged_at: null,
  created_at: T0,
  aliases: [{ alias: "HippoRAG", valid_from: T0, valid_to: null }],
  events: [{ op: "created", detail: { name: "HippoRAG" }, at: T0, recorded_at: T0 }],
  mentions: [{ chunk: "arxiv:2405.14831", version: 1, valid_from: T0, valid_to: null }],
};

export const EntityDetail = z
  .object({
    id: z.string(),
    type: z.string(),
    name: z.string(),
    merged_into: z.string().nullable(),
    merged_at: IsoOrNull,
    created_at: Iso,
    aliases: z.array(z.object({ alias: z.string(), valid_from: Iso, valid_to: IsoOrNull })),
    events: z
      .array(
        z.object({
          op: z.string().openapi({ description: "created, alias, rename, merged_into, absorbed or deprecated" }),
          detail: z.record(z.string(), z.unknown()),
          at: Iso,
          recorded_at: Iso,
        }),
      )
      .openapi({ description: "Oldest first." }),
    mentions: z
      .array(z.object({ chunk: z.string(), version: z.number().int(), valid_from: Iso, valid_to: IsoOrNull }))
      .openapi({ description: "Chunk versions mentioning the entity, oldest first (at most 500)." }),
  })
  .openapi("EntityDetail", {
    example: ENTITY_DETAIL_EXAMPLE,
  });

/** Default and largest slice of content one read returns (characters). */
export const CONTENT_DEFAULT_CHARS = 100_000;
export const CONTENT_MAX_CHARS = 2 * 1024 * 1024;

const offset = (name: string, description: string) =>
  queryParam(z.coerce.number().int().min(0).max(CONTENT_MAX_CHARS).optional(), name, description);

/** A version number as the query parameter `name`. */
const versionParam = (name: string, description: string) =>
  queryParam(z.coerce.number().int().min(1).max(1_000_000).optional(), name, description);

export const ContentQuery = z.object({
  version: versionParam("version", "Exact version; default: the version valid at `as_of`."),
  as_of: queryParam(Time.optional(), "as_of", "Without `version`: read the version valid then (default now)."),
  start: offset("start", "First character, inclusive (default 0); offsets count UTF-16 code units, as anchors do."),
  end: offset("end", "Last character, exclusive (default: end of content, capped by max_chars)."),
  max_chars: queryParam(
    z.coerce.number().int().min(1).max(CONTENT_MAX_CHARS).default(CONTENT_DEFAULT_CHARS),
    "max_chars",
    `Longest text returned (default ${CONTENT_DEFAULT_CHARS.toLocaleString("en")}); longer spans are cut and say where to continue.`,
  ),
  session_id: queryParam(
    z.string().min(1).max(200).optional(),
    "session_id",
    "The caller's session: the read is logged as an `expansion` access in it (the chunk then seeds the session's recency and shows in its short-term window). Without it, nothing is logged.",
  ),
});

export const ContentSlice = z
  .object({
    chunk: z.string(),
    version: z.number().int(),
    start: z.number().int(),
    end: z.number().int(),
    content_chars: z.number().int(),
    content_sha256: z.string().openapi({ description: "SHA-256 of the whole version's content (hex)." }),
    text: z.string().openapi({ description: "Exactly content[start, end)." }),
    truncated: z.boolean().openapi({ description: "true when max_chars cut the requested span." }),
    next_start: z.number().int().nullable().openapi({ description: "Where the next slice starts when truncated." }),
  })
  .openapi("ContentSlice", {
    example: {
      chunk: "arxiv:2405.14831",
      version: 1,
      start: 0,
      end: 35,
      content_chars: 1840,
      content_sha256: "9f2c…",
      text: "HippoRAG uses Personalized PageRank",
      truncated: false,
      next_start: null,
    },
  });

export const DirQuery = z.object({
  prefix: z
    .string()
    .min(1)
    .max(MAX_ID)
    .openapi({
      param: { name: "prefix", in: "query" },
      description: "The repository's chunk id prefix, e.g. gh:acme/memory/.",
      example: "gh:acme/memory/",
    }),
  as_of: queryParam(Time.optional(), "as_of", "The state as of then (default now)."),
});

export const DirResult = z
  .object({
    prefix: z.string(),
    as_of: z.string(),
    dir: z.number().openapi({ description: "|E_used| / |E_total| (4 decimals); 0 without standalone exports." }),
    total: z.number().int().openapi({ description: "|E_total|: exported declarations of standalone modules." }),
    used: z
      .number()
      .int()
      .openapi({ description: "|E_used|: those an integration module that depends on them names." }),
    integration: z
      .array(z.string())
      .openapi({ description: "Modules that depend on others and that none depends on." }),
    standalone: z.array(z.string()),
    tests: z.array(z.string()).openapi({ description: "Modules with a tests edge (left out of both sets)." }),
    unused: z.array(z.string()).openapi({ description: "module#symbol of E_total not in E_used." }),
  })
  .openapi("DirResult", {
    example: {
      prefix: "gh:acme/memory/",
      as_of: T0,
      dir: 0.5,
      total: 4,
      used: 2,
      integration: ["gh:acme/memory/main.py"],
      standalone: ["gh:acme/memory/index.py", "gh:acme/memory/ppr.py"],
      tests: [],
      unused: ["gh:acme/memory/index.py#Index", "gh:acme/memory/ppr.py#damping"],
    },
  });

export const GroundingQuery = z.object({
  kind: queryParam(
    z.enum(CHUNK_KINDS).default("technique"),
    "kind",
    "The kind whose grounding is counted (default technique).",
  ),
  prefix: queryParam(
    z.string().min(1).max(MAX_ID).optional(),
    "prefix",
    "Only chunk ids starting with this (one paper's graph).",
  ),
  as_of: queryParam(Time.optional(), "as_of", "As of then (default now)."),
});

export const GroundingResult = z
  .object({
    kind: z.string(),
    as_of: z.string(),
    total: z.number().int(),
    grounded: z.number().int().openapi({ description: "Chunks some chunk implements (xKG: techniques with code)." }),
    ungrounded: z.array(z.string()).openapi({ description: "The others, in id order (at most 1,000 listed)." }),
    share: z.number().openapi({ description: "grounded / total (4 decimals; 0 when total is 0)." }),
  })
  .openapi("GroundingResult", {
    example: { kind: "technique", as_of: T0, total: 3, grounded: 2, ungrounded: ["paper:x#t:loss"], share: 0.6667 },
  });

export const DiffQuery = z.object({
  from: versionParam("from", "The older version (default: the one before `to`)."),
  to: versionParam("to", "The newer version (default: the latest)."),
  context: queryParam(
    z.coerce.number().int().min(0).max(100).default(3),
    "context",
    "Lines of context in `unified` (default 3).",
  ),
});

export const ChunkDiff = z
  .object({
    chunk: z.string(),
    from: z.object({ version: z.number().int(), valid_from: Iso, content_chars: z.number().int() }),
    to: z.object({ version: z.number().int(), valid_from: Iso, content_chars: z.number().int() }),
    inserted_lines: z.number().int(),
    deleted_lines: z.number().int(),
    ops: z
      .array(
        z.object({
          op: z.enum(["equal", "insert", "delete"]),
          from: z.tuple([z.number().int(), z.number().int()]).openapi({ description: "[start, end) in `from`." }),
          to: z.tuple([z.number().int(), z.number().int()]).openapi({ description: "[start, end) in `to`." }),
          lines: z.number().int(),
          text: z.string().openapi({ description: "The inserted or deleted text; empty for equal spans." }),
        }),
      )
      .openapi({ description: "Line operations in order; equal + delete spans rebuild `from`, equal + insert `to`." }),
    unified: z.string().openapi({ description: "The same diff in unified format." }),
  })
  .openapi("ChunkDiff", {
    example: {
      chunk: "design:cache",
      from: { version: 1, valid_from: T0, content_chars: 44 },
      to: { version: 2, valid_from: T0, content_chars: 53 },
      inserted_lines: 2,
      deleted_lines: 1,
      ops: [
        { op: "equal", from: [0, 20], to: [0, 20], lines: 1, text: "" },
        { op: "delete", from: [20, 31], to: [20, 20], lines: 1, text: "evict: LRU\n" },
        { op: "insert", from: [31, 31], to: [20, 31], lines: 1, text: "evict: LFU\n" },
      ],
      unified:
        "--- design:cache@v1\n+++ design:cache@v2\n@@ -1,3 +1,4 @@\n design: cache heads\n-evict: LRU\n+evict: LFU\n",
    },
  });
