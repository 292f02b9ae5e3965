/** ProjectGuard's pre-turn brief: what an agent must know before the next request. */
import { z } from "@hono/zod-openapi";
import { CodeChunks, CodeWindow, MAX_CODE_BYTES } from "./code";
import { boundedInt, MAX_ID, MODEL_CALLS, T0, Time } from "./common";
import { SpecView } from "./projectguard";
import { SessionId } from "./query";

export const BriefBody = z
  .object({
    request: z.string().min(1).max(8000).openapi({ description: "The upcoming user request." }),
    recent_requests: z.array(z.string().min(1).max(8000)).max(5).optional().openapi({
      description:
        "The session's last user requests, most recent last (they join the query). Absent with `session_id`: read from the session.",
    }),
    session_id: SessionId.optional().openapi({
      description:
        "The agent's session (as POST …/sessions/{session}/events): without `recent_requests`, its last 5 `user` events at `as_of` (among its last 50 events; a turn equal to `request` is skipped) join the query.",
    }),
    as_of: Time.optional(),
    budget_tokens: z.number().int().min(100).max(200_000).default(2000),
    prefix: z
      .string()
      .min(1)
      .max(MAX_ID)
      .optional()
      .openapi({ description: "Only code units under this id prefix (one repository)." }),
    min_score: z.number().min(0).max(100).optional().openapi({
      description:
        "Records the router scores below this (the request's best lexical match scores about 1) are not about the request and are not briefed (default 0.1; 0 keeps all).",
    }),
    context: z
      .object({
        window_tokens: z
          .number()
          .int()
          .min(1000)
          .max(10_000_000)
          .openapi({ description: "The coding agent's context window, in tokens." }),
        used_tokens: z
          .number()
          .int()
          .min(0)
          .max(10_000_000)
          .openapi({ description: "Tokens its live context holds now." }),
        next_turns: boundedInt(1, 50, 3, "Turns the estimate covers (default 3)."),
        turn_tokens: z.number().int().min(1).max(1_000_000).optional().openapi({
          description:
            "Tokens one turn adds (default: the request's tokens plus the mean tokens of the session's recent assistant events).",
        }),
      })
      .strict()
      .optional()
      .openapi({
        description:
          "The agent's live context: with it the brief answers `restart` (B.2), whether the next turns fit what remains or a restart with the rendered state is the better move.",
      }),
  })
  .openapi("BriefRequest", {
    example: { request: "Make the cache evict least recently used heads", budget_tokens: 1500 },
  });

const Commitment = z.object({
  id: z.string(),
  kind: z.string(),
  version: z.number().int(),
  title: z.string(),
  synopsis: z.string(),
  valid_from: z.string(),
  score: z.number(),
  spec: SpecView.optional().openapi({
    description: "The record's spec components (A.2: description, formula, inputs, outputs, connections), when set.",
  }),
});

const Resource = z.object({
  id: z.string(),
  kind: z.string(),
  version: z.number().int(),
  title: z.string(),
  synopsis: z.string(),
  motivates: z.array(z.string()).openapi({ description: "The records it motivates (a `motivates` edge at `as_of`)." }),
});

const ModuleRef = z.object({
  id: z.string(),
  version: z.number().int(),
  implements: z.array(z.string()),
  reason: z.string(),
});

const Constraint = z.object({
  module: z.string(),
  symbol: z.string(),
  signature: z.string(),
  anchor: z.object({
    artifact_id: z.string(),
    version: z.number().int(),
    start: z.number().int(),
    end: z.number().int(),
    snippet: z.string(),
  }),
});

/** The resource chunk the brief and render examples list, motivating `decision`. */
const resourceExample = (decision: string) => ({
  id: "note:cache-misses",
  kind: "note",
  version: 1,
  title: "Cache misses dominate latency",
  synopsis: "Profiling showed 70% of query time in head reads.",
  motivates: [decision],
});

export const BriefResult = z
  .object({
    as_of: z.string(),
    session_turns: z.number().int().optional().openapi({
      description:
        "With `session_id`: the session's `user` events read as recent requests (0 with `recent_requests`, which win).",
    }),
    commitments: z
      .array(Commitment)
      .openapi({ description: "Committed designs and decisions relevant to the request, best first." }),
    held_back: z
      .array(z.object({ id: z.string(), status: z.string() }))
      .openapi({ description: "Relevant records not committed (proposed, rejected, no status): never briefed." }),
    resources: z.array(Resource).optional().openapi({
      description:
        "Chunks that motivate a briefed commitment (papers, notes, observations), heads only; those whose own status is set and not `committed` are left out. Absent when none does.",
    }),
    preserve: z.array(ModuleRef).openapi({ description: "Modules other modules depend on or test." }),
    revise: z.array(ModuleRef).openapi({ description: "Modules whose commitment changed after they last did." }),
    reuse: z.array(ModuleRef).openapi({ description: "Other modules implementing the commitments." }),
    constraints: z
      .array(Constraint)
      .openapi({ description: "Exported signatures of the modules to preserve, as exact anchors." }),
    restart: z
      .object({
        window_tokens: z.number().int(),
        used_tokens: z.number().int(),
        remaining_tokens: z.number().int().openapi({ description: "window_tokens − used_tokens." }),
        next_turns: z.number().int(),
        turn_tokens: z.number().int().openapi({ description: "Tokens one turn is estimated to add." }),
        parts: z
          .object({
            brief: z.number().int().openapi({ description: "This brief's tokens." }),
            code: z.number().int().openapi({
              description:
                "The current contents of the modules to revise, preserve and reuse (the files the turns touch).",
            }),
            turns: z.number().int().openapi({ description: "next_turns × turn_tokens." }),
          })
          .openapi({ description: "What the live context needs for the next turns." }),
        needed_tokens: z.number().int().openapi({ description: "brief + code + turns." }),
        render_tokens: z.number().int().nullable().openapi({
          description:
            "The rendered state a fresh session starts with (POST …/render within the window, at most 200,000); null when it does not fit.",
        }),
        fresh_needed_tokens: z
          .number()
          .int()
          .nullable()
          .openapi({ description: "render + code + turns: what a fresh session needs; null without a render." }),
        advice: z.enum(["continue", "restart", "narrow"]).openapi({
          description:
            "continue: the needed tokens fit what remains; restart: they do not, and a fresh session with the render holds them; narrow: neither does (split the request).",
        }),
        reason: z.string(),
      })
      .optional()
      .openapi({ description: "With `context`: the proactive restart signal (B.2) with its numbers." }),
    tokens: z.number().int().openapi({ description: "Tokens of this whole result (cl100k_base)." }),
    omitted: z
      .array(z.string())
      .openapi({ description: "What did not fit the budget (ids; module#symbol for constraints)." }),
  })
  .openapi("BriefResult", {
    example: {
      as_of: T0,
      session_turns: 2,
      commitments: [
        {
          id: "decision:cache",
          kind: "decision",
          version: 1,
          title: "Cache heads in memory",
          synopsis: "Heads live in the Durable Object.",
          valid_from: T0,
          score: 0.41,
        },
      ],
      held_back: [{ id: "decision:lru", status: "proposed" }],
      resources: [resourceExample("decision:cache")],
      preserve: [
        { id: "repo/cache.ts", version: 2, implements: ["decision:cache"], reason: "depended on by 1, tested by 0" },
      ],
      revise: [],
      reuse: [],
      constraints: [
        {
          module: "repo/cache.ts",
          symbol: "getHead",
          signature: "export function getHead(id: string): Head",
          anchor: {
            artifact_id: "repo/cache.ts",
            version: 2,
            start: 0,
            end: 41,
            snippet: "export function getHead(id: string): Head {",
          },
        },
      ],
      tokens: 310,
      omitted: [],
    },
  });

export const RenderBody = z
  .object({
    as_of: Time.optional(),
    budget_tokens: z.number().int().min(100).max(200_000).default(8000),
    prefix: z
      .string()
      .min(1)
      .max(MAX_ID)
      .optional()
      .openapi({ description: "Only code units under this id prefix (one repository); default all code units." }),
  })
  .openapi("RenderRequest", { example: { budget_tokens: 8000, prefix: "gh:acme/memory/" } });

export const RenderResult = z
  .object({
    as_of: z.string(),
    designs: z.array(
      z.object({
        id: z.string(),
        version: z.number().int(),
        title: z.string(),
        content: z.string(),
        spec: SpecView.optional().openapi({ description: "Its spec components (A.2), when set." }),
      }),
    ),
    decisions: z.array(
      z.object({
        id: z.string(),
        version: z.number().int(),
        title: z.string(),
        content: z.string(),
        part_of: z.array(z.string()),
        spec: SpecView.optional().openapi({ description: "Its spec components (A.2), when set." }),
      }),
    ),
    resources: z.array(Resource).openapi({
      description:
        "Chunks that motivate a committed design or decision, heads only (read the content with GET …/chunks/{id}/content).",
    }),
    modules: z.array(
      z.object({
        id: z.string(),
        version: z.number().int(),
        implements: z.array(z.string()),
        depends_on: z.array(z.string()),
        signatures: z.array(
          z.object({ symbol: z.string(), signature: z.string(), start: z.number().int(), end: z.number().int() }),
        ),
      }),
    ),
    tokens: z.number().int().openapi({ description: "Tokens of this whole result (cl100k_base)." }),
    state_chars: z.number().int().openapi({ description: "Characters of the whole state before the budget cut." }),
    omitted: z.array(z.string()).openapi({ description: "Ids left out to fit the budget." }),
  })
  .openapi("RenderResult", {
    example: {
      as_of: T0,
      designs: [
        {
          id: "design:storage",
          version: 2,
          title: "Heads live in a Durable Object cache",
          content: "Every archive keeps …",
        },
      ],
      decisions: [
        {
          id: "decision:cache-lru",
          version: 1,
          title: "Evict by least recent use",
          content: "The heads cache evicts …",
          part_of: ["design:storage"],
        },
      ],
      resources: [resourceExample("decision:cache-lru")],
      modules: [
        {
          id: "repo/cache.ts",
          version: 1,
          implements: ["decision:cache-lru"],
          depends_on: [],
          signatures: [
            { symbol: "getHead", signature: "export function getHead(id: string): string", start: 0, end: 44 },
          ],
        },
      ],
      tokens: 412,
      state_chars: 1630,
      omitted: [],
    },
  });

/** xKG technique -> code pairs. */

export const CodePairsBody = z
  .object({
    query: z.string().min(1).max(8000).openapi({ description: "The technique you need code for, in words." }),
    as_of: Time.optional(),
    limit: boundedInt(1, 50, 10, "Techniques routed (1-50)."),
    threshold: z.number().min(-1).max(1).optional().openapi({
      description:
        "Minimum pair score (the technique's cosine similarity to the query); default 0.15, measured for reuse (a technique of another paper asking for related code) on the released xKG graphs with the local embedder; 0.55 for a technique's own code by its exact description (docs/coding-agents.md: how). -1 returns every routed technique.",
    }),
    include_ungrounded: z
      .boolean()
      .default(true)
      .openapi({ description: "true: techniques without code come back flagged grounded: false." }),
    within: z
      .string()
      .min(1)
      .max(MAX_ID)
      .optional()
      .openapi({ description: "Only techniques in this chunk's part-of subtree (one paper)." }),
    boundaries_any: z
      .array(z.string().min(1).max(200))
      .max(50)
      .optional()
      .openapi({ description: "Only techniques carrying at least one of these boundary tags." }),
    boundaries_all: z
      .array(z.string().min(1).max(200))
      .max(50)
      .optional()
      .openapi({ description: "Only techniques carrying every one of these boundary tags." }),
    max_code_bytes: z
      .number()
      .int()
      .min(1)
      .max(MAX_CODE_BYTES)
      .optional()
      .openapi({
        description: `Cap on the UTF-8 bytes of all code spans together, in pair order (xKG puts at most 52,100 bytes of code in a prompt): a span that does not fit whole is cut at its last line end within what is left (\`truncated: true\`), pairs after the cap is spent keep no code (\`code_left_out\`). With code_chunks it caps the windows. 1-${MAX_CODE_BYTES.toLocaleString("en-US")}; default no cap.`,
      }),
    code_chunks: CodeChunks.openapi({
      description:
        "Code windows (see ContextRequest.code_chunks): each pair's code carries `windows`, the best windows of its code span scored against the technique's text (an xKG technique's name and description), instead of the whole span.",
      example: { size: 350, overlap: 100 },
    }),
    verify: z.boolean().default(false).openapi({
      description:
        "true: xKG's verifier (§2.4): the configured language model reads the query and the pairs above the threshold (the first 24 in the router's order, texts cut) in one bounded call and keeps, drops and reorders them, each with a reason (`verifier`); applied before max_code_bytes. Without a model, a 409 naming the setting. Default false.",
    }),
  })
  .strict()
  .openapi("CodePairsRequest", { example: { query: "classifier-free guidance sampling", limit: 5 } });

const PairAnchor = z.object({
  artifact_id: z.string(),
  version: z.number().int(),
  start: z.number().int(),
  end: z.number().int(),
});

const PairNode = z.object({
  id: z.string(),
  version: z.number().int(),
  title: z.string(),
  anchor: PairAnchor.openapi({
    description: "The whole content of that version; read it with GET /chunks/{id}/content.",
  }),
});

const PairCode = z.object({
  id: z.string(),
  version: z.number().int(),
  title: z.string(),
  anchor: PairAnchor.openapi({
    description:
      "The code span of that version: an imported xKG code node's implementation, without the documentation stored after it (the whole content for other code); read it with GET /chunks/{id}/content?version=&start=&end=.",
  }),
  bytes: z.number().int().openapi({ description: "UTF-8 bytes of the code span." }),
  truncated: z
    .boolean()
    .optional()
    .openapi({ description: "true: the span was cut at a line end to fit max_code_bytes (absent: whole)." }),
  windows: z.array(CodeWindow).optional().openapi({
    description:
      "With code_chunks: the best windows of the code span in text order, each an exact span with its text (a /verify anchor); `bytes` then counts them, and `truncated` says the last was cut or later ones left out.",
  }),
});

const PairVerifier = z.object({
  model: z.string().openapi({ description: "`provider:model` of the verifier." }),
  candidates: z
    .number()
    .int()
    .openapi({ description: "Pairs the verifier read (the first 24 above the threshold, in the router's order)." }),
  kept: z.number().int().openapi({ description: "Pairs kept (the answer's pairs, in the verifier's order)." }),
  dropped: z
    .array(
      z.object({
        technique: z.string(),
        code: z.string().nullable(),
        score: z.number(),
        reason: z.string(),
      }),
    )
    .openapi({
      description:
        "Pairs left out, with the verifier's reason; pairs it gave no verdict, and those beyond its bound of 24, are left out too, saying so.",
    }),
  ignored: z.array(z.object({ index: z.number().int(), pair: z.string(), reason: z.string() })).openapi({
    description: "Entries of the model's answer not used: an id that is no candidate's, a second verdict.",
  }),
  usage: z.object(MODEL_CALLS),
});

export const CodePairsResult = z
  .object({
    as_of: z.string(),
    threshold: z.number(),
    pairs: z.array(
      z.object({
        technique: PairNode,
        code: PairCode.nullable().openapi({
          description:
            "null for a technique no code implements (grounded: false), or one max_code_bytes left no room for.",
        }),
        grounded: z.boolean(),
        score: z.number().openapi({
          description: "The pair's score, compared with the threshold: the technique's cosine similarity to the query.",
        }),
        parts: z
          .object({
            semantic: z.number(),
            semantic_from: z.enum(["index", "sketch"]),
            lexical: z.number(),
            route: z.number(),
          })
          .openapi({
            description:
              "What the router knew of the technique: semantic (the cosine, = score), semantic_from (index: the vector index's cosine; sketch: estimated from 256-bit sketches, about ±0.1, for a technique outside the index's top 100), lexical (BM25 relative to the query's best lexical hit, 0-1) and route (the router's score, which orders the pairs; relative to the other candidates).",
          }),
        verifier_reason: z
          .string()
          .optional()
          .openapi({ description: "With verify: why the verifier kept the pair (pairs are then in its order)." }),
      }),
    ),
    below_threshold: z.number().int().openapi({ description: "Routed techniques left out by the threshold." }),
    code_bytes: z.number().int().openapi({ description: "UTF-8 bytes of every code span returned, together." }),
    code_left_out: z.number().int().openapi({
      description: "Pairs whose code max_code_bytes left no room for (their code is null, grounded stays true).",
    }),
    verifier: PairVerifier.optional().openapi({ description: "With verify: what the verifier kept and dropped." }),
  })
  .openapi("CodePairs", {
    example: {
      as_of: T0,
      threshold: 0.15,
      pairs: [
        {
          technique: {
            id: "paper:classifier-free-diffusion-guidance#t:classifier-free-diffusion-guidance",
            version: 1,
            title: "Classifier-Free Diffusion Guidance (Classifier-Free Diffusion Guidance)",
            anchor: {
              artifact_id: "paper:classifier-free-diffusion-guidance#t:classifier-free-diffusion-guidance",
              version: 1,
              start: 0,
              end: 612,
            },
          },
          code: {
            id: "paper:classifier-free-diffusion-guidance#t:classifier-free-diffusion-guidance#code",
            version: 1,
            title: "Classifier-Free Diffusion Guidance (implementation)",
            anchor: {
              artifact_id: "paper:classifier-free-diffusion-guidance#t:classifier-free-diffusion-guidance#code",
              version: 1,
              start: 0,
              end: 4710,
            },
            bytes: 4738,
          },
          grounded: true,
          score: 0.62,
          parts: { semantic: 0.62, semantic_from: "index", lexical: 1, route: 0.41 },
        },
      ],
      below_threshold: 3,
    },
  });
