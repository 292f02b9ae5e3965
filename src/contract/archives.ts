/**
 * Archives, keys, kernel parameters and the operations on the capital chunk.
 * zod schemas are the single source of request validation, TypeScript types and the OpenAPI
 * document; REST, MCP and the application layer all read them from src/contract.
 */
import { z } from "@hono/zod-openapi";
import { ArchiveParam, T0 } from "./common";

/** camelCase -> snake_case (kernel parameters were camelCase on the wire before 2026-11-25). */
const snakeKey = (k: string) => k.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();

const KernelParamsObject = z
  .object({
    alpha: z.number().gt(0).lt(1),
    iterations: z.number().int().min(1).max(100),
    kr: z.number().int().min(1).max(64),
    top_m: z.number().int().min(1).max(4096),
    d_max: z.number().int().min(0).max(6),
    eta: z.number().min(0).max(10),
    recency_half_life_days: z.number().positive(),
    router_beam: z.number().int().min(1).max(256),
    router_lambda: z
      .number()
      .min(0)
      .max(4)
      .openapi({ description: "weight of a path's support in the router: score(v) = head(v) + λ · path(v)" }),
    name_share: z.number().min(0).max(1).openapi({
      description:
        "a name grounded from content is a query entity only if the archive writes it as a name in at least this share of the documents holding its rarest word (0: every grounded name)",
    }),
    push_epsilon: z.number().min(1e-6).max(0.1),
    max_frontier: z.number().int().min(16).max(16384),
    max_postings_per_entity: z.number().int().min(16).max(8192),
    max_postings_per_term: z.number().int().min(16).max(65536),
    max_lexical_postings: z.number().int().min(256).max(1_048_576),
    lexical_seeds: z.number().int().min(0).max(1000),
    degree_exponent: z.number().min(0).max(2),
    heap_budget_bytes: z
      .number()
      .int()
      .min(65_536)
      .max(96 * 1024 * 1024)
      .openapi({
        description:
          "heap the capital chunk may hold (default 64 MiB); ingest past it answers 413; at most 96 MiB of the 128 MB isolate",
      }),
    weights: z
      .object({
        sem: z.number().min(0).max(4),
        lex: z.number().min(0).max(4),
        sym: z.number().min(0).max(4),
        graph: z.number().min(0).max(4),
        rec: z.number().min(0).max(4),
        thread: z.number().min(0).max(4),
      })
      .partial()
      .openapi({
        description:
          "weights of the experts in the head score lex·p_lex + Σ w·p (each p in [0, 1], 0 when its signal says nothing; 0 turns one off)",
      }),
  })
  .partial()
  .strict();

/** Kernel parameter overrides, snake_case; the camelCase names of before (topM, pushEpsilon, ...) are accepted too. */
export const KernelParamsSchema = z
  .preprocess(
    (v) =>
      v !== null && typeof v === "object" && !Array.isArray(v)
        ? Object.fromEntries(Object.entries(v).map(([k, x]) => [snakeKey(k), x]))
        : v,
    KernelParamsObject,
  )
  .openapi("KernelParams", { example: { top_m: 256, push_epsilon: 0.0001 } });

/** Wire (snake_case) kernel parameters -> the names the kernel uses (src/core/types KernelParams). */
export function toKernelParams(p: z.infer<typeof KernelParamsObject>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(p).map(([k, v]) => [k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()), v]),
  );
}

export const CreateArchive = z
  .object({
    id: ArchiveParam.shape.archive.optional(),
    name: z.string().min(1).max(200),
    description: z.string().max(2000).optional(),
    params: KernelParamsSchema.optional(),
  })
  .openapi("CreateArchive", {
    example: { id: "rag-memory", name: "RAG memory", description: "papers and notes on agent memory" },
  });

export const Scope = z.enum(["read", "write"]);

export const CreateKey = z
  .object({ scopes: z.array(Scope).min(1).default(["read", "write"]), label: z.string().max(200).optional() })
  .openapi("CreateKey", { example: { scopes: ["read"], label: "research agent (read-only)" } });

/** GET /v1/whoami: what the calling key may reach (nothing a key could not already read). */
export const WhoAmI = z
  .object({
    admin: z.boolean().openapi({ description: "true for the deployment's admin key (every archive, every scope)" }),
    key_id: z.string().nullable().openapi({ description: "the archive key's id; null for the admin key" }),
    archives: z
      .array(
        z.object({
          id: z.string(),
          name: z.string(),
          scopes: z.array(z.enum(["read", "write", "admin"])),
        }),
      )
      .openapi({ description: "the archives the key reaches with its scopes, oldest first (one for an archive key)" }),
  })
  .openapi("WhoAmI", {
    example: {
      admin: false,
      key_id: "k_1a2b3c4d5e6f7a8b",
      archives: [{ id: "rag-memory", name: "RAG memory", scopes: ["read"] }],
    },
  });

export const Healthz = z
  .object({ ok: z.boolean(), service: z.string() })
  .openapi("Healthz", { example: { ok: true, service: "paperguru" } });

export const ArchiveSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    params: z.record(z.string(), z.unknown()).openapi({ description: "kernel parameter overrides" }),
    created_at: z.string().openapi({ description: "ISO 8601" }),
  })
  .openapi("Archive", {
    example: {
      id: "rag-memory",
      name: "RAG memory",
      description: "papers and notes on agent memory",
      params: {},
      created_at: T0,
    },
  });

const ARCHIVE_EXAMPLE = {
  id: "rag-memory",
  name: "RAG memory",
  description: "papers and notes on agent memory",
  params: {},
  created_at: T0,
};

export const ArchiveCreated = z
  .object({
    archive: ArchiveSchema,
    key: z.object({
      id: z.string(),
      secret: z.string().openapi({ description: "shown once; only its SHA-256 is stored" }),
      scopes: z.array(z.string()),
    }),
  })
  .openapi("ArchiveCreated", {
    example: {
      archive: ARCHIVE_EXAMPLE,
      key: {
        id: "k_1a2b3c4d5e6f7a8b",
        secret: "pgk_0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a6978",
        scopes: ["read", "write"],
      },
    },
  });

export const ArchiveList = z
  .object({ archives: z.array(ArchiveSchema) })
  .openapi("ArchiveList", { example: { archives: [ARCHIVE_EXAMPLE] } });

/** Capital-chunk statistics are measured estimates whose fields grow with the implementation. */
export const ArchiveInfo = z
  .object({
    archive: ArchiveSchema.nullable(),
    stats: z.object({
      capital: z
        .object({
          heads: z.number(),
          nodes: z.number(),
          edges: z.number(),
          entities: z.number(),
          bytes: z.record(z.string(), z.number()),
          bytes_per_head: z.number(),
          seq: z.number(),
        })
        .loose(),
      storage: z.object({ chunks: z.number(), versions: z.number(), edges: z.number(), entities: z.number() }),
    }),
  })
  .openapi("ArchiveInfo", {
    example: {
      archive: ARCHIVE_EXAMPLE,
      stats: {
        capital: {
          heads: 1200,
          nodes: 1450,
          edges: 5300,
          slots: 10600,
          entities: 800,
          aliases: 950,
          bytes: { nodes: 61440, sketches: 76800, neighbours: 169600, total: 420000 },
          bytes_per_head: 350,
          seq: 3100,
          last_rebuild: { ms: 41, from_snapshot_seq: 3000, snapshot_bytes: 390000, replayed: 100, seq: 3100 },
          params: {},
        },
        storage: { chunks: 1200, versions: 1340, edges: 5300, entities: 800 },
      },
    },
  });

export const KeyIssued = z
  .object({
    id: z.string(),
    secret: z.string().openapi({ description: "shown once; only its SHA-256 is stored" }),
    scopes: z.array(z.string()),
    label: z.string(),
  })
  .openapi("KeyIssued", {
    example: {
      id: "k_9f8e7d6c5b4a3928",
      secret: "pgk_a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718",
      scopes: ["read"],
      label: "research agent (read-only)",
    },
  });

export const KeySchema = z
  .object({
    id: z.string(),
    label: z.string(),
    scopes: z.array(z.string()),
    created_at: z.string(),
    revoked_at: z.string().nullable(),
  })
  .openapi("Key");

export const KeyList = z.object({ keys: z.array(KeySchema) }).openapi("KeyList", {
  example: {
    keys: [
      {
        id: "k_9f8e7d6c5b4a3928",
        label: "research agent (read-only)",
        scopes: ["read"],
        created_at: T0,
        revoked_at: null,
      },
    ],
  },
});

export const KeyRevoked = z
  .object({ revoked: z.string() })
  .openapi("KeyRevoked", { example: { revoked: "k_9f8e7d6c5b4a3928" } });

export const Snapshot = z.object({ seq: z.number(), bytes: z.number(), key: z.string() }).openapi("Snapshot", {
  example: { seq: 3100, bytes: 390000, key: "capital/rag-memory/000000003100" },
});

export const Evicted = z.object({ evicted: z.string() }).openapi("Evicted", { example: { evicted: "rag-memory" } });
