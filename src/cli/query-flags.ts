/**
 * The filter, follow and ranking flags of `route` and `context`: each maps onto a field of the REST
 * body (src/contract/query.ts FilterSchema and FollowSchema, src/contract/discovery.ts RankingSchema)
 * and is checked here first, so a typo is a usage error naming the flag and the allowed values
 * (exit 2) before any request. The server validates the same body again.
 */
import type { ContextBody, RouteBody } from "../client";
import { POOL_MODES, SORT_KEYS, VIEWS } from "../core/research/rank-pool";
import { CHUNK_KINDS, EDGE_TYPES } from "../core/types";
import { flagOption, type OptionSpec, type Run, valueOption } from "./command";
import { oneOf } from "./common";
import { UsageError } from "./io";

type Filter = NonNullable<RouteBody["filter"]>;
type Ranking = NonNullable<RouteBody["ranking"]>;
type Follow = NonNullable<ContextBody["follow"]>[number];

export const FILTER_OPTIONS: Record<string, OptionSpec> = {
  kinds: valueOption("<a,b>", `only these kinds (${CHUNK_KINDS.join(", ")})`, { multiple: true }),
  scope: valueOption("<tags>", "only chunks carrying at least one of these boundary tags (filter.boundaries_any)", {
    multiple: true,
  }),
  "scope-all": valueOption("<tags>", "only chunks carrying every one of these boundary tags (filter.boundaries_all)", {
    multiple: true,
  }),
  within: valueOption("<id>", "only this chunk's part-of subtree (a paper, a repository)"),
  "cited-by": valueOption("<id>", "only what this chunk or its part-of subtree cites (a paper's references)"),
  exclude: valueOption("<ids>", "never these chunk ids (repeat the flag or separate with commas)", { multiple: true }),
  grounded: flagOption("only chunks something implements (techniques with code)"),
  "min-similarity": valueOption("<x>", "minimum cosine of the head to the query (-1 to 1)"),
  "research-memory": flagOption(
    "include SGMC hubs and drafts, which general queries leave out (filter.research_memory)",
  ),
};

export const RANKING_OPTIONS: Record<string, OptionSpec> = {
  mode: valueOption(
    "<mode>",
    `rank the candidate pool by ${POOL_MODES.join(", ")} (default poe: the route's own score)`,
  ),
  weights: valueOption(
    "<k=v,...>",
    "override the mode's weights: similarity, recency, novelty, bm25 (0-10), e.g. similarity=0.7,bm25=0.3",
  ),
  mmr: {
    type: "boolean",
    arg: "[lambda]",
    description: "Maximal Marginal Relevance over the pool; an optional λ from 0 to 1 may follow (--mmr 0.6)",
  },
  lambda: valueOption("<x>", "MMR's λ (0-1), as --mmr <x>"),
  sort: valueOption("<key>", `order the pool by one score: ${SORT_KEYS.join(", ")}`),
  view: valueOption("<view>", `a Paper Circle view: ${VIEWS.join(", ")}`),
  "min-citations": valueOption("<n>", "with --view canonical: citations that make a paper canonical (default 50)"),
  "top-share": valueOption(
    "<x>",
    "with --view canonical: the pool's top share by citations that is canonical (0-1, default 0.1)",
  ),
  venues: valueOption("<a,b>", "with --view canonical: venues (entity ids or names) whose papers are canonical", {
    multiple: true,
  }),
  venue: valueOption(
    "<a,b>",
    "only candidates of these venues (entity ids or names) before the ranking (ranking.venues)",
    { multiple: true },
  ),
  "year-from": valueOption("<yyyy>", "only candidates of this year or later (ranking.year_from)"),
  "year-to": valueOption("<yyyy>", "only candidates of this year or earlier (ranking.year_to)"),
  floor: valueOption(
    "<x>",
    "similarity to the query a candidate needs before a mode, view, sort or MMR reorders (ranking.min_similarity; default 0.2, 0 off)",
  ),
};

export const FOLLOW_OPTION: Record<string, OptionSpec> = {
  follow: valueOption(
    "<type[:in|out][:n]>",
    "attach each card's exact neighbours over this edge type (direction default out, n 1-100 default 20); up to 4 times, e.g. --follow implements:in:5",
    { multiple: true },
  ),
};

const LAMBDA = /^(?:0|1|0?\.\d+|0\.\d*|1\.0*)$/;

/** Each argument before `--` through `step` (what replaces it, and whether it took the next one); the rest as is. */
function rewriteEach(argv: string[], step: (a: string, next: string | undefined) => [string[], boolean]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === "--") {
      out.push(...argv.slice(i));
      break;
    }
    const [args, tookNext] = step(a, argv[i + 1]);
    out.push(...args);
    if (tookNext) i++;
  }
  return out;
}

/** `--mmr 0.6` and `--mmr=0.6` become `--mmr --lambda 0.6` (parseArgs has no optional values). */
export function rewriteMmr(argv: string[]): string[] {
  return rewriteEach(argv, (a, next) => {
    const eq = /^--mmr=(.*)$/.exec(a);
    if (eq) return [["--mmr", "--lambda", eq[1] as string], false];
    if (a === "--mmr" && next !== undefined && LAMBDA.test(next)) return [["--mmr", "--lambda", next], true];
    return [[a], false];
  });
}

/** The `filter` object from the flags, or undefined when none was given. */
export function filterFromFlags(r: Run): Filter | undefined {
  const f: Filter = {};
  const kinds = r.list("kinds");
  if (kinds) f.kinds = kinds.map((k) => oneOf("kinds", k, CHUNK_KINDS));
  const any = r.list("scope");
  if (any) f.boundaries_any = any;
  const all = r.list("scope-all");
  if (all) f.boundaries_all = all;
  const within = r.str("within");
  if (within) f.within = within;
  const citedBy = r.str("cited-by");
  if (citedBy) f.cited_by = citedBy;
  const exclude = r.list("exclude");
  if (exclude) {
    if (exclude.length > 1000) throw new UsageError(`--exclude takes at most 1000 ids, got ${exclude.length}`);
    f.exclude = exclude;
  }
  if (r.values.grounded === true) f.grounded = true;
  const minSim = r.num("min-similarity", -1, 1);
  if (minSim !== undefined) f.min_similarity = minSim;
  if (r.values["research-memory"] === true) f.research_memory = true;
  return Object.keys(f).length ? f : undefined;
}

/** `--year-from` and `--year-to`, each 0-9999, the second not before the first. */
export function yearRange(r: Run): { yearFrom: number | undefined; yearTo: number | undefined } {
  const yearFrom = r.int("year-from", 0, 9999);
  const yearTo = r.int("year-to", 0, 9999);
  if (yearFrom !== undefined && yearTo !== undefined && yearTo < yearFrom)
    throw new UsageError(`--year-to ${yearTo} is before --year-from ${yearFrom}`);
  return { yearFrom, yearTo };
}

const WEIGHT_KEYS = ["similarity", "recency", "novelty", "bm25"] as const;

/** The `ranking` object from the flags (the same combinations the server refuses are refused here). */
export function rankingFromFlags(r: Run): Ranking | undefined {
  const mode = r.str("mode");
  const weights = r.str("weights");
  const mmr = r.values.mmr === true;
  const lambda = r.num("lambda", 0, 1);
  const sort = r.str("sort");
  const view = r.str("view");
  const canonical: NonNullable<Ranking["canonical"]> = {};
  const minCitations = r.int("min-citations", 0, 1_000_000_000);
  if (minCitations !== undefined) canonical.min_citations = minCitations;
  const topShare = r.num("top-share", 0, 1);
  if (topShare !== undefined) canonical.top_share = topShare;
  const venues = r.list("venues");
  if (venues) canonical.venues = venues;
  const hasCanonical = Object.keys(canonical).length > 0;
  if (hasCanonical && view !== "canonical")
    throw new UsageError("--min-citations, --top-share and --venues go with --view canonical");
  const venueFilter = r.list("venue");
  const { yearFrom, yearTo } = yearRange(r);
  const floor = r.num("floor", 0, 1);
  const narrows = venueFilter !== undefined || yearFrom !== undefined || yearTo !== undefined || floor !== undefined;
  if (mode === undefined && weights === undefined && !mmr && lambda === undefined && !sort && !view && !narrows)
    return undefined;
  const out: Ranking = {};
  if (venueFilter) out.venues = venueFilter;
  if (yearFrom !== undefined) out.year_from = yearFrom;
  if (yearTo !== undefined) out.year_to = yearTo;
  if (floor !== undefined) out.min_similarity = floor;
  if (mode !== undefined) out.mode = oneOf("mode", mode, POOL_MODES);
  if (weights !== undefined) {
    if ((out.mode ?? "poe") === "poe")
      throw new UsageError("--weights apply to --mode stable, discovery or balanced: give --mode too");
    const w: NonNullable<Ranking["weights"]> = {};
    for (const part of weights.split(",").filter((p) => p.trim())) {
      const m = /^\s*([a-z0-9_]+)\s*=\s*([^\s]+)\s*$/.exec(part);
      if (!m) throw new UsageError(`--weights: "${part}" is not key=value (e.g. similarity=0.7,bm25=0.3)`);
      const key = oneOf("weights", m[1] as string, WEIGHT_KEYS);
      const n = Number(m[2]);
      if (!Number.isFinite(n) || n < 0 || n > 10)
        throw new UsageError(`--weights: ${key} must be a number from 0 to 10, got ${m[2]}`);
      w[key] = n;
    }
    if (!Object.keys(w).length) throw new UsageError("--weights: give at least one key=value");
    out.weights = w;
  }
  if (lambda !== undefined && !mmr) throw new UsageError("--lambda is MMR's: add --mmr (or write --mmr <λ>)");
  if (mmr) out.mmr = true;
  if (lambda !== undefined) out.lambda = lambda;
  if (view !== undefined) {
    if (mmr) throw new UsageError("--view cannot be combined with --mmr: give one of them");
    out.view = oneOf("view", view, VIEWS);
    if (hasCanonical) out.canonical = canonical;
  }
  if (sort !== undefined) {
    const key = oneOf("sort", sort, SORT_KEYS);
    if (key !== "combined" && (mmr || view)) throw new UsageError("--sort cannot be combined with --mmr or --view");
    out.sort = key;
  }
  return out;
}

/** `--follow type[:in|out][:n]`, repeated up to 4 times. */
export function followFromFlags(r: Run): Follow[] | undefined {
  const specs = r.list("follow");
  if (!specs) return undefined;
  if (specs.length > 4) throw new UsageError(`--follow may be given at most 4 times, got ${specs.length}`);
  return specs.map((spec) => {
    const [type = "", ...rest] = spec.split(":");
    const f: Follow = { type: oneOf("follow", type, EDGE_TYPES) };
    for (const part of rest) {
      if (part === "in" || part === "out") f.direction = part;
      else if (/^\d+$/.test(part) && Number(part) >= 1 && Number(part) <= 100) f.limit = Number(part);
      else throw new UsageError(`--follow ${spec}: "${part}" is neither in/out nor a limit from 1 to 100`);
    }
    return f;
  });
}

/** `--code-chunks [size[:overlap]]`: code as its best windows (with rewriteCodeChunks). */
export const CODE_CHUNKS_OPTION: OptionSpec = valueOption(
  "[size[:overlap]]",
  "carry code as its best windows (default 350:100, xKG's splitter; size 50-20000, overlap < size)",
);

/** `--max-code-bytes` and `--code-chunks` of `context` and `xkg pairs` (xKG seed 003, Tables 4 and 7). */
export const CODE_OPTIONS: Record<string, OptionSpec> = {
  "max-code-bytes": valueOption(
    "<n>",
    "cap on the code's UTF-8 bytes together, in rank order, cut at line ends (xKG prompts: 52100)",
  ),
  "code-chunks": CODE_CHUNKS_OPTION,
};

const CODE_CHUNKS = /^\d+(?::\d+)?$/;

/** A bare `--code-chunks` becomes `--code-chunks=` (xKG's defaults); parseArgs has no optional values. */
export function rewriteCodeChunks(argv: string[]): string[] {
  return rewriteEach(argv, (a, next) => {
    if (a !== "--code-chunks") return [[a], false];
    if (next !== undefined && CODE_CHUNKS.test(next)) return [[`--code-chunks=${next}`], true];
    return [["--code-chunks="], false];
  });
}

/** The body's max_code_bytes and code_chunks from the flags (absent ones left out). */
export function codeFromFlags(r: Run): Pick<ContextBody, "max_code_bytes" | "code_chunks"> {
  const max = r.int("max-code-bytes", 1, 10_000_000);
  const spec = r.str("code-chunks");
  const out: Pick<ContextBody, "max_code_bytes" | "code_chunks"> = max === undefined ? {} : { max_code_bytes: max };
  if (spec === undefined) return out;
  if (spec === "") return { ...out, code_chunks: true };
  if (!CODE_CHUNKS.test(spec)) throw new UsageError(`--code-chunks: give size or size:overlap, got ${spec}`);
  const [size, overlap] = spec.split(":").map(Number) as [number, number | undefined];
  if (size < 50 || size > 20_000) throw new UsageError(`--code-chunks: size must be from 50 to 20000, got ${size}`);
  if (overlap !== undefined && overlap >= size)
    throw new UsageError(`--code-chunks: overlap must be less than size (${size}), got ${overlap}`);
  return { ...out, code_chunks: overlap === undefined ? { size } : { size, overlap } };
}
