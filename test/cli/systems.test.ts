/**
 * The seed systems' command groups (project, xkg, research, papers), annotate / annotations / diff,
 * `note --kind --edge`, and the filter, follow and ranking flags of `route` and `context`, in-process
 * through `main(argv, io)` against a throwaway local Worker. Bad flag values are usage errors (exit
 * 2) before any request; the rest checks that each flag reaches the REST body (the server's answer
 * changes accordingly) and that each command prints readable text and, with --json, the JSON.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Server, startServer } from "../../scripts/lib/server";
import type { Io } from "../../src/cli/io";
import { main } from "../../src/cli/main";
import { rewriteMmr } from "../../src/cli/query-flags";
import type { ContextResponse, RouteResponse } from "../../src/client";

let server: Server | null = null;
let tmp: string;

function sink() {
  let text = "";
  const stream = new Writable({
    write(chunk, _enc, cb) {
      text += String(chunk);
      cb();
    },
  });
  return { stream, text: () => text };
}

async function cli(argv: string[], stdin = "") {
  const out = sink();
  const err = sink();
  const io: Partial<Io> = {
    stdout: out.stream,
    stderr: err.stream,
    cwd: tmp,
    env: {
      HOME: tmp,
      PAPERGURU_CONFIG: join(tmp, "config.json"),
      PAPERGURU_URL: server?.url ?? "http://127.0.0.1:9",
      PAPERGURU_ADMIN_KEY: server?.adminKey ?? "admin",
    },
    readStdin: async () => stdin,
    onInterrupt: () => () => {},
  };
  const code = await main(argv, io);
  return { code, out: out.text(), err: err.text() };
}

/** Runs a command that must succeed; returns its stdout. */
async function ok(argv: string[], stdin = ""): Promise<string> {
  const r = await cli(argv, stdin);
  expect(r.code, `${argv.join(" ")}\n${r.err}`).toBe(0);
  return r.out;
}
const json = async <T>(argv: string[]) => JSON.parse(await ok([...argv, "--json"])) as T;

const MD = `# Routing Memory for Agents

We route over heads first and expand contents last.

## Method

Personalized PageRank spreads relevance from the seed passages; see Table 1.

## Results

Recall@5 rises from 72.0 to 75.5 with longer synopses.
`;

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), "paperguru-systems-"));
});

afterAll(() => {
  server?.stop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe("CLI flags and help, before any request", () => {
  it("lists every group in the overview and each group's commands in its help", async () => {
    const top = await ok(["--help"]);
    for (const c of [
      "project brief",
      "project render",
      "project dir",
      "xkg pairs",
      "xkg export",
      "research tree",
      "research hubs",
      "research drafts",
      "research convergence",
      "research feedback",
      "papers stats",
      "papers locate",
      "papers coverage",
      "papers review",
      "papers metrics",
      "annotate",
      "diff",
    ])
      expect(top).toContain(`  ${c}`);
    for (const [group, subs] of [
      ["project", ["brief", "render", "dir"]],
      ["xkg", ["pairs", "export", "grounding"]],
      ["research", ["tree", "hubs", "drafts", "convergence", "feedback", "assemble"]],
      ["papers", ["stats", "locate", "coverage", "review", "metrics"]],
    ] as const) {
      const h = await ok([group, "--help"]);
      for (const s of subs) expect(h).toContain(`paperguru ${group} ${s}`);
    }
    const ctx = await ok(["context", "--help"]);
    for (const f of [
      "--kinds",
      "--scope",
      "--within",
      "--cited-by",
      "--exclude",
      "--follow",
      "--mode",
      "--mmr",
      "--view",
      "--weights",
    ])
      expect(ctx).toContain(f);
    expect((await cli(["papers", "stat"])).err).toContain('did you mean "papers stats"');
  });

  it("refuses bad filter, ranking and follow values with exit 2, naming the flag", async () => {
    const cases: Array<[string[], RegExp]> = [
      [["context", "q", "--kinds", "paper,papr"], /--kinds: unknown value "papr"; did you mean "paper"/],
      [["route", "q", "--weights", "similarity=1"], /--weights apply to --mode stable, discovery or balanced/],
      [["route", "q", "--mode", "stable", "--weights", "simil=1"], /--weights: unknown value "simil"/],
      [["route", "q", "--mode", "stable", "--weights", "similarity=11"], /similarity must be a number from 0 to 10/],
      [["route", "q", "--mode", "fast"], /--mode: unknown value "fast"; .*poe, stable, discovery, balanced/],
      [["route", "q", "--mmr", "--view", "canonical"], /--view cannot be combined with --mmr/],
      [["route", "q", "--lambda", "0.5"], /--lambda is MMR's: add --mmr/],
      [["route", "q", "--view", "gems"], /--view: unknown value "gems"/],
      [["route", "q", "--mmr", "--sort", "bm25"], /--sort cannot be combined/],
      [["context", "q", "--min-similarity", "2"], /--min-similarity must be a number from -1 to 1/],
      [["context", "q", "--follow", "implements:sideways"], /"sideways" is neither in\/out nor a limit/],
      [["context", "q", "--follow", "implement"], /--follow: unknown value "implement"; did you mean "implements"/],
      [
        [
          "context",
          "q",
          "--follow",
          "cites",
          "--follow",
          "cites",
          "--follow",
          "cites",
          "--follow",
          "cites",
          "--follow",
          "cites",
        ],
        /at most 4 times/,
      ],
      [["note", "x", "--kind", "nope"], /--kind: unknown kind "nope"/],
      [["note", "x", "--edge", "implement=decision:x"], /--edge implement=decision:x: give <type>=<chunk id>/],
      [["papers", "coverage", "p", "--rule", "all"], /--rule: unknown value "all"/],
      [["papers", "review", "--edge", "a,cites"], /--edge takes <from>,<type>,<to>/],
      [["papers", "metrics"], /give a queries file, --runs or --run <id>/],
      [["annotate", "c", "status"], /give a value or --add <n>/],
      [["research", "hubs", "n", "--query", "q"], /go with --gather/],
      [["route", "q", "--venues", "NeurIPS"], /go with --view canonical/],
      [["route", "q", "--view", "canonical", "--top-share", "2"], /--top-share must be a number from 0 to 1/],
    ];
    for (const [argv, re] of cases) {
      const r = await cli([...argv, "--archive", "a", "--key", "k", "--url", "http://127.0.0.1:9"]);
      expect(r.code, `${argv.join(" ")}: ${r.err}`).toBe(2);
      expect(r.err, argv.join(" ")).toMatch(re);
    }
  });

  it("reads --mmr's optional λ", () => {
    expect(rewriteMmr(["q", "--mmr", "0.6"])).toEqual(["q", "--mmr", "--lambda", "0.6"]);
    expect(rewriteMmr(["q", "--mmr=1"])).toEqual(["q", "--mmr", "--lambda", "1"]);
    expect(rewriteMmr(["--mmr", "query", "--limit", "3"])).toEqual(["--mmr", "query", "--limit", "3"]);
    expect(rewriteMmr(["q", "--mmr", "--", "--mmr", "0.5"])).toEqual(["q", "--mmr", "--", "--mmr", "0.5"]);
  });
});

describe("CLI command groups against a running worker", () => {
  beforeAll(async () => {
    server = await startServer({ fresh: true });
    await ok(["archives", "create", "systems", "--save"]);
    const notes: string[][] = [
      [
        "Personalized PageRank spreads relevance from seed passages over a graph; HippoRAG uses damping 0.5.",
        "--kind",
        "paper",
        "--id",
        "paper:hipporag",
        "--title",
        "HippoRAG",
        "--tag",
        "year:2024",
      ],
      [
        "Route over heads first and expand contents last; keep the PageRank damping at 0.85.",
        "--kind",
        "decision",
        "--id",
        "decision:damping",
        "--title",
        "PageRank damping 0.85",
        "--tag",
        "team:core",
      ],
      [
        "A proposal to lower the PageRank damping to 0.5.",
        "--kind",
        "decision",
        "--id",
        "decision:lower",
        "--title",
        "Lower the PageRank damping",
      ],
      [
        "export function damping(): number { return 0.85; }",
        "--kind",
        "code_unit",
        "--id",
        "repo/src/ppr.ts",
        "--edge",
        "implements=decision:damping",
      ],
      [
        "import { damping } from './ppr';\nexport function route(): number { return damping(); }",
        "--kind",
        "code_unit",
        "--id",
        "repo/src/route.ts",
        "--edge",
        "depends-on=repo/src/ppr.ts",
      ],
      [
        "Personalized PageRank with restart from the seed passages of the query.",
        "--kind",
        "technique",
        "--id",
        "paper:hipporag#t:ppr",
        "--title",
        "Personalized PageRank",
        "--edge",
        "part-of=paper:hipporag",
      ],
      [
        "export function ppr(seeds: string[]): Map<string, number> { return new Map(); }",
        "--kind",
        "code_unit",
        "--id",
        "repo/src/ppr-impl.ts",
        "--edge",
        "implements=paper:hipporag#t:ppr",
      ],
      ["Memory for research agents", "--kind", "section", "--id", "review:memory", "--tag", "outline"],
      [
        "Graph-based retrieval",
        "--kind",
        "section",
        "--id",
        "review:memory/graph",
        "--tag",
        "outline,order:1",
        "--edge",
        "part-of=review:memory",
        "--edge",
        "cites=paper:hipporag",
      ],
      ["Check every cited number against its source.", "--id", "fb:numbers", "--tag", "feedback"],
      [
        "A benchmark of damping factors: 0.85 converged fastest on every graph we tried.",
        "--id",
        "doc:damping-study",
        "--title",
        "Damping study",
        "--edge",
        "motivates=decision:damping",
      ],
    ];
    for (const n of notes) await ok(["note", ...n]);
    await ok(["annotate", "decision:damping", "status", "committed", "--reason", "agreed"]);
    await ok(["annotate", "decision:lower", "status", "proposed"]);
    writeFileSync(join(tmp, "study.md"), MD);
    await ok(["import", "study.md"]);
  }, 300_000);

  it("context: --kinds, --exclude, --scope and --follow reach the request", async () => {
    const kinds = await json<ContextResponse>(["context", "PageRank damping", "--kinds", "decision"]);
    expect(kinds.cards.length).toBeGreaterThan(0);
    expect(kinds.cards.every((c) => c.kind === "decision")).toBe(true);
    const all = await json<ContextResponse>(["context", "PageRank damping"]);
    expect(all.cards.some((c) => c.kind !== "decision")).toBe(true);
    const excluded = await json<ContextResponse>([
      "context",
      "PageRank damping",
      "--exclude",
      "decision:damping,paper:hipporag",
    ]);
    expect(excluded.cards.map((c) => c.artifact_id)).not.toContain("decision:damping");
    expect(excluded.cards.map((c) => c.artifact_id)).not.toContain("paper:hipporag");
    const scoped = await json<ContextResponse>(["context", "PageRank damping", "--scope", "team:core"]);
    expect(scoped.cards.map((c) => c.artifact_id)).toEqual(["decision:damping"]);
    const within = await json<ContextResponse>(["context", "PageRank", "--within", "paper:hipporag"]);
    expect(within.cards.every((c) => c.artifact_id.startsWith("paper:hipporag"))).toBe(true);
    type Followed = ContextResponse["cards"][number] & { follow?: Array<{ chunk: string; type: string }> };
    const followed = await json<{ cards: Followed[] }>([
      "context",
      "PageRank damping",
      "--kinds",
      "decision",
      "--follow",
      "implements:in:5",
    ]);
    const card = followed.cards.find((c) => c.artifact_id === "decision:damping");
    expect(card?.follow?.map((f) => f.chunk)).toContain("repo/src/ppr.ts");
    const text = await ok(["context", "PageRank damping", "--kinds", "decision", "--follow", "implements:in"]);
    expect(text).toContain("<- implements repo/src/ppr.ts@v1");
  });

  it("route: ranking flags reach the request and print the ranking", async () => {
    const r = await json<RouteResponse>([
      "route",
      "PageRank damping",
      "--mode",
      "discovery",
      "--mmr",
      "0.6",
      "--limit",
      "5",
    ]);
    expect(r.ranking?.mode).toBe("discovery");
    expect(r.ranking?.lambda).toBe(0.6);
    expect(r.ranking?.items.some((x) => x.mmr_rank !== null)).toBe(true);
    const w = await json<RouteResponse>(["route", "PageRank", "--mode", "stable", "--weights", "similarity=1,bm25=0"]);
    expect(w.ranking?.weights).toMatchObject({ similarity: 1, bm25: 0 });
    const filtered = await json<RouteResponse>(["route", "PageRank", "--kinds", "code_unit", "--grounded"]);
    expect(filtered.candidates.length).toBe(0);
    const code = await json<RouteResponse>(["route", "damping", "--kinds", "code_unit"]);
    expect(code.candidates.every((c) => c.kind === "code_unit")).toBe(true);
    const text = await ok(["route", "PageRank damping", "--mode", "balanced", "--sort", "bm25"]);
    expect(text).toMatch(/ranking: mode balanced, weights .*sort bm25/);
    const canon = await json<RouteResponse>([
      "route",
      "PageRank",
      "--view",
      "canonical",
      "--min-citations",
      "0",
      "--floor",
      "0",
    ]);
    expect(canon.ranking?.view).toBe("canonical");
    // Without the similarity floor every pool item has at least 0 citations: the threshold reached
    // the request (the default, 50 citations or the top 10 % by citations, keeps fewer).
    expect(canon.ranking?.items.length).toBe(canon.ranking?.pool);
    // --year-to / --year-from narrow the pool before the ranking (year: tag, else valid_from's year).
    const old = await json<RouteResponse>(["route", "PageRank", "--year-to", "2024"]);
    expect(old.ranking?.items.map((x) => x.chunk)).toEqual(["paper:hipporag"]);
    const recent = await json<RouteResponse>(["route", "PageRank", "--year-from", "2025", "--floor", "0"]);
    expect(recent.ranking?.items.map((x) => x.chunk)).not.toContain("paper:hipporag");
    expect(recent.ranking?.items.length).toBeGreaterThan(0);
    expect((await cli(["route", "PageRank", "--year-from", "2025", "--year-to", "2024"])).code).toBe(2);
    // The modes and their weights without a query.
    const modes = await json<{ modes: Array<{ mode: string; weights: Record<string, number> | null }> }>([
      "papers",
      "modes",
    ]);
    expect(modes.modes.map((m) => m.mode)).toContain("discovery");
    expect(await ok(["papers", "modes", "stable"])).toMatch(/^stable\s+[\d.]+\s+[\d.]+/m);
    expect((await cli(["papers", "modes", "stabel"])).code).toBe(2);
    const byDefault = await json<RouteResponse>(["route", "PageRank", "--view", "canonical"]);
    expect(byDefault.ranking?.items.length).toBeLessThan(canon.ranking?.items.length ?? 0);
    const traced = await json<RouteResponse>(["route", "PageRank", "--trace"]);
    expect(traced.trace?.candidate_pool).toBeGreaterThan(0);
    expect(await ok(["context", "PageRank", "--trace"])).toMatch(/^trace: \d+ seeds, .*pool \d+/m);
  });

  it("project brief, render and dir", async () => {
    const brief = await json<{
      commitments: Array<{ id: string }>;
      reuse: Array<{ id: string }>;
      preserve: Array<{ id: string }>;
      held_back: Array<{ id: string; status: string }>;
    }>(["project", "brief", "Change the PageRank damping", "--recent", "We talked about routing"]);
    expect(brief.commitments.map((c) => c.id)).toEqual(["decision:damping"]);
    expect([...brief.reuse, ...brief.preserve].map((m) => m.id)).toContain("repo/src/ppr.ts");
    expect(brief.held_back).toContainEqual({ id: "decision:lower", status: "proposed" });
    const text = await ok(["project", "brief", "Change the PageRank damping"]);
    expect(text).toContain("commitments:\n  decision:damping@v1 (decision");
    expect(text).toContain("held back: decision:lower (proposed)");
    const render = await ok(["project", "render", "--budget", "2000", "--prefix", "repo/"]);
    expect(render).toContain("decision decision:damping@v1: PageRank damping 0.85");
    expect(render).toContain("    export function damping(): number");
    const dir = await json<{ total: number; used: number; integration: string[] }>(["project", "dir", "repo/"]);
    expect(dir.integration).toEqual(["repo/src/route.ts"]);
    // Resources (what motivates a commitment) reach the brief and the render.
    expect(text).toContain("resources (what motivated the commitments):\n  doc:damping-study@v1: Damping study");
    expect(render).toContain("resources:\n  doc:damping-study@v1: Damping study (motivates decision:damping)");
    // --session: the brief reads the session's own last requests.
    await ok(["session", "add", "s-brief", "We talked about routing"]);
    const withSession = await json<{ session_turns?: number }>([
      "project",
      "brief",
      "Change the PageRank damping",
      "--session",
      "s-brief",
    ]);
    expect(withSession.session_turns).toBe(1);
    // access: per-channel counts per session and per chunk.
    await ok(["context", "PageRank damping", "--session", "s-access"]);
    const acc = await json<{ rows: Array<{ key: string | null; routing: number; expansion: number }> }>([
      "access",
      "--session",
      "s-access",
      "--by",
      "chunk",
    ]);
    expect(acc.rows.length).toBeGreaterThan(0);
    expect(acc.rows.some((x) => x.expansion > 0)).toBe(true);
    expect(await ok(["access"])).toMatch(
      /^\d+ accesses \(routing \d+, expansion \d+, verification \d+\) in \d+ session row/,
    );
    expect((await cli(["access", "--by", "paper"])).code).toBe(2);
    expect(dir.used).toBe(1);
    expect(await ok(["project", "dir", "repo/"])).toMatch(/^DIR [\d.]+ for repo\/ .*: 1 of \d standalone exports used/);
  });

  it("xkg pairs, grounding and export", async () => {
    const pairs = await json<{ pairs: Array<{ technique: { id: string }; code: { id: string } | null }> }>([
      "xkg",
      "pairs",
      "personalized pagerank from seed passages",
      "--limit",
      "5",
    ]);
    expect(pairs.pairs[0]?.technique.id).toBe("paper:hipporag#t:ppr");
    expect(pairs.pairs[0]?.code?.id).toBe("repo/src/ppr-impl.ts");
    expect(await ok(["xkg", "pairs", "personalized pagerank from seed passages"])).toContain(
      "    code: repo/src/ppr-impl.ts@v1 [0,",
    );
    expect(await ok(["xkg", "grounding"])).toContain("1 of 1 technique chunks grounded");
    const none = await cli(["xkg", "export"]);
    expect(none.code).toBe(0);
    expect(none.err).toContain("no xKG paper in scope");
  });

  it("research tree, hubs --gather, drafts --write, convergence, assemble and feedback", async () => {
    const tree = await ok(["research", "tree", "review:memory"]);
    expect(tree).toMatch(/^ {2}review:memory: Memory for research agents \(/m);
    expect(tree).toMatch(/^ {4}review:memory\/graph: Graph-based retrieval \(.*1 refs/m);
    const hub = await ok(["research", "hubs", "review:memory/graph", "--gather", "--json"]);
    expect(JSON.parse(hub).hub.status).toBe("created");
    const hubs = await ok(["research", "hubs", "review:memory/graph", "--json"]);
    writeFileSync(join(tmp, "hub.json"), hubs);
    expect(JSON.parse(hubs).iterations[0].evidence.length).toBeGreaterThan(0);
    writeFileSync(
      join(tmp, "draft1.txt"),
      "Graph retrieval spreads relevance with Personalized PageRank from seed passages.",
    );
    writeFileSync(
      join(tmp, "draft2.txt"),
      "Graph retrieval spreads relevance with Personalized PageRank from the seed passages.",
    );
    await ok(["research", "drafts", "review:memory/graph", "--write", "draft1.txt", "--evidence", "hub.json"]);
    const d2 = await ok([
      "research",
      "drafts",
      "review:memory/graph",
      "--write",
      "draft2.txt",
      "--evidence",
      "hub.json",
    ]);
    expect(d2).toContain("review:memory/graph#draft@v2 updated (iteration 1); cites paper:hipporag");
    expect(d2).toContain("from the seed passages.");
    const conv = await json<{ pairs: unknown[]; stop: { iteration: number } | null }>([
      "research",
      "convergence",
      "review:memory/graph#draft",
    ]);
    expect(conv.pairs.length).toBe(1);
    expect(conv.stop?.iteration).toBe(1);
    // Hubs and drafts stay out of general context unless --research-memory asks for them.
    const ids = async (argv: string[]) =>
      (await json<ContextResponse>(argv)).cards.map((c) => c.artifact_id).filter((id) => /#(hub|draft)$/.test(id));
    expect(await ids(["context", "Personalized PageRank seed passages"])).toEqual([]);
    expect(await ids(["context", "Personalized PageRank seed passages", "--research-memory"])).toContain(
      "review:memory/graph#draft",
    );
    const assembled = await cli(["research", "assemble", "review:memory"]);
    expect(assembled.code).toBe(0);
    expect(assembled.out).toContain("## Graph-based retrieval");
    expect(assembled.err).toContain("left out: review:memory (no_draft)");
    await ok(["annotate", "fb:numbers", "uses", "--add", "2"]);
    const fb = await ok(["research", "feedback"]);
    expect(fb).toContain(
      'selected: fb:numbers@v1 "Check every cited number against its source." (uses 2, revisions 0)',
    );
  });

  it("papers stats, locate, coverage, review and metrics", async () => {
    const papers = await json<{ chunks: Array<{ id: string; title: string }> }>(["chunks", "--kind", "paper"]);
    const study = papers.chunks.find((c) => c.title.startsWith("Routing Memory"))?.id as string;
    expect(study).toBeTruthy();
    const stats = await json<{ papers: number }>(["papers", "stats"]);
    expect(stats.papers).toBe(2);
    expect(await ok(["papers", "stats"])).toMatch(/^2 papers as of /);
    const loc = await json<{ items: Array<{ chunk: string; kind: string; snippets: Array<{ text: string }> }> }>([
      "papers",
      "locate",
      study,
      "Recall rises with longer synopses",
      "--kinds",
      "section",
    ]);
    expect(loc.items[0]?.kind).toBe("section");
    expect(loc.items[0]?.snippets[0]?.text).toContain("Recall@5 rises");
    expect(await ok(["papers", "locate", study, "Recall rises with longer synopses"])).toMatch(/\[1\] .*Results/);
    const cov = await json<{ types: { section: { total: number } } }>([
      "papers",
      "coverage",
      study,
      "--rule",
      "grounded",
    ]);
    expect(cov.types.section.total).toBeGreaterThanOrEqual(2);
    expect(await ok(["papers", "coverage", study])).toContain("  section ");
    const noReason = await cli(["papers", "review", "paper:hipporag", "--op", "flag"]);
    expect(noReason.code).toBe(1);
    expect(noReason.err).toContain("reason");
    expect(await ok(["papers", "review", "paper:hipporag", "--op", "verify", "--reason", "read it"])).toContain(
      "verify: auto-generated -> human-verified",
    );
    const state = await json<{ status: string; history: unknown[] }>(["papers", "review", "paper:hipporag"]);
    expect(state).toMatchObject({ status: "human-verified" });
    expect(state.history.length).toBe(1);
    const edge = await ok([
      "papers",
      "review",
      "--edge",
      "repo/src/ppr.ts,implements,decision:damping",
      "--op",
      "verify",
    ]);
    expect(edge).toContain("repo/src/ppr.ts -implements-> decision:damping: human-verified");
    writeFileSync(
      join(tmp, "queries.json"),
      JSON.stringify({ queries: [{ query: "PageRank damping decision", gold: ["decision:damping"] }], name: "cli" }),
    );
    const run = await json<{ id: string; aggregate: { hit_rate: number } }>([
      "papers",
      "metrics",
      "queries.json",
      "--k",
      "1,5",
    ]);
    expect(run.aggregate.hit_rate).toBe(1);
    expect(await ok(["papers", "metrics", "--runs"])).toContain(`${run.id} `);
    expect(await ok(["papers", "metrics", "--run", run.id])).toMatch(
      /"cli" as of \S+: 1 queries: hit rate 1\.000, MRR 1\.000/,
    );
  });

  it("expand: chosen chunks as cards, id@version, with follow", async () => {
    const text = await ok([
      "expand",
      "decision:damping@1",
      "paper:hipporag",
      "--follow",
      "implements:in",
      "--budget",
      "800",
    ]);
    expect(text).toMatch(/^2 cards, \d+ tokens/);
    expect(text).toContain("decision:damping@v1 · decision");
    expect(text).toContain("<- implements repo/src/ppr.ts@v1");
    const missing = await json<{ cards: unknown[]; skipped: Array<{ chunk: string }> }>(["expand", "nope:x"]);
    expect(missing.cards).toEqual([]);
    expect(missing.skipped.map((s) => s.chunk)).toEqual(["nope:x"]);
    expect((await cli(["expand", "x", "--tokenizer", "p50k"])).code).toBe(2);
  });

  it("annotate, annotations, revise and diff", async () => {
    expect(await ok(["annotate", "decision:damping", "reviews", "--add", "1", "--event-id", "e1"])).toContain(
      "decision:damping reviews = 1 (1 events)",
    );
    expect(await ok(["annotate", "decision:damping", "reviews", "--add", "1", "--event-id", "e1"])).toContain(
      "(already recorded)",
    );
    const ann = await json<{ values: Record<string, { value: unknown }> }>(["annotations", "decision:damping"]);
    expect(ann.values.status?.value).toBe("committed");
    expect(ann.values.reviews?.value).toBe(1);
    await ok([
      "revise",
      "decision:damping",
      "--content",
      "Route over heads first and expand contents last; keep the PageRank damping at 0.5.",
    ]);
    const diff = await cli(["diff", "decision:damping"]);
    expect(diff.code).toBe(0);
    expect(diff.out).toContain("-Route over heads first and expand contents last; keep the PageRank damping at 0.85.");
    expect(diff.out).toContain("+Route over heads first and expand contents last; keep the PageRank damping at 0.5.");
    expect(diff.err).toContain("decision:damping: v1 -> v2, +1 -1 lines");
  });
});
