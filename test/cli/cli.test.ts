/**
 * The `paperguru` CLI against a running local worker (scripts/start.mjs with a temporary state
 * directory, on 127.0.0.1 only). Commands run in-process through `main(argv, io)` with their own
 * streams, environment, working directory and config file; one test runs bin/paperguru.mjs as a child
 * process and interrupts it with a real SIGINT.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Server, startServer } from "../../scripts/lib/server";
import { readState } from "../../src/cli/import";
import type { Io } from "../../src/cli/io";
import { main } from "../../src/cli/main";
import type { ContextResponse } from "../../src/client";

const ROOT = join(import.meta.dirname, "..", "..");

let server: Server;
let tmp: string;
let papers: string;
let configPath: string;

/** A stream that collects what is written, optionally pretending to be a terminal. */
function sink(tty = false, onWrite?: (chunk: string) => void) {
  let text = "";
  const s = new Writable({
    write(chunk, _enc, cb) {
      const c = String(chunk);
      text += c;
      onWrite?.(c);
      cb();
    },
  }) as Writable & { isTTY?: boolean; columns?: number };
  if (tty) {
    s.isTTY = true;
    s.columns = 120;
  }
  return { stream: s, text: () => text };
}

interface RunOptions {
  env?: Record<string, string | undefined>;
  stdin?: string;
  tty?: boolean;
  /** Called with each chunk written to stdout/stderr and a function that simulates Ctrl-C. */
  watch?: (chunk: string, interrupt: () => void) => void;
}

async function cli(argv: string[], o: RunOptions = {}) {
  let handler: (() => void) | null = null;
  const interrupt = () => handler?.();
  const out = sink(o.tty, (c) => o.watch?.(c, interrupt));
  const err = sink(false, (c) => o.watch?.(c, interrupt));
  const io: Partial<Io> = {
    stdout: out.stream,
    stderr: err.stream,
    cwd: tmp,
    env: { HOME: tmp, PAPERGURU_CONFIG: configPath, PAPERGURU_URL: server.url, ...o.env },
    readStdin: async () => o.stdin ?? "",
    onInterrupt(h) {
      handler = h;
      return () => {
        handler = null;
      };
    },
  };
  const code = await main(argv, io);
  return { code, out: out.text(), err: err.text() };
}

const json = <T>(s: string) => JSON.parse(s) as T;

// ------------------------------------------------------------------ fixtures

const TOPICS = ["graph memory", "retrieval augmentation", "temporal validity", "entity resolution", "evidence cards"];

function fullTextPaper(i: number) {
  const t = TOPICS[i % TOPICS.length] as string;
  return {
    paper_id: `2301.${10000 + i}`,
    metadata: {
      title: `Paper ${i}: ${t} for long-horizon agents, study ${i}`,
      abstract: `We study ${t} for long-horizon agents, variant ${i}.`,
      authors: "A. Author, B. Author",
      versions: [{ version: "v1", created: "Thu, 5 Jan 2023 10:00:00 GMT" }],
    },
    abstract: { text: `We study ${t} for long-horizon agents, variant ${i}.` },
    body_text: [
      {
        section: "Introduction",
        text: `Agents need ${t}. Variant ${i} improves recall by ${i}.5 points {{cite:r${i}}}.`,
        cite_spans: [],
      },
      {
        section: "Method",
        text: `We combine ${t} with personalised PageRank over heads, setting ${i}.`,
        cite_spans: [],
      },
    ],
    bib_entries: {
      [`r${i}`]: {
        bib_entry_raw: "P. Lewis et al. Retrieval-Augmented Generation. arXiv:2005.11401",
        ids: { arxiv_id: "2005.11401", doi: "", open_alex_id: "" },
      },
    },
  };
}

const BIB = `
@article{lewis2020rag,
  title = {Retrieval-Augmented Generation for Knowledge-Intensive {NLP} Tasks},
  author = {Lewis, Patrick and Perez, Ethan},
  journal = {Advances in Neural Information Processing Systems},
  year = {2020},
  eprint = {2005.11401},
  archivePrefix = {arXiv},
  abstract = {Large pre-trained language models store factual knowledge in their parameters. We explore retrieval-augmented generation.}
}
@inproceedings{gutierrez2024hipporag,
  title = {HippoRAG: Neurobiologically Inspired Long-Term Memory for Large Language Models},
  author = {Gutierrez, Bernal and Su, Yu},
  booktitle = {NeurIPS},
  year = {2024},
  doi = {10.5555/hipporag.2024}
}
`;

const MD = `# Memory for Agents: A Short Study

We compare memories for long-horizon agents.

## Method

We route over heads first and expand contents last, as HippoRAG does with PageRank.

## Results

Recall@5 rises from 72.0 to 75.5 with longer synopses.
`;

const FEED = {
  artifacts: [
    {
      id: "decision:cache",
      kind: "decision",
      title: "Cache capital chunks in memory",
      content: "We keep the routing surface of every archive in a Durable Object so that queries never scan D1.",
      valid_from: "2024-01-01",
    },
    {
      id: "note:budget",
      kind: "note",
      title: "Token budgets",
      content: "Context responses must fit a token budget; cards are distilled to claims with anchored spans.",
    },
  ],
};

/** 6 pieces: the .bib (1), the .jsonl of 25 papers (10 + 10 + 5), the feed (1), the Markdown paper (1). */
const PIECES = 6;

function writeFixtures(dir: string) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "a-refs.bib"), BIB);
  writeFileSync(
    join(dir, "b-papers.jsonl"),
    `${Array.from({ length: 25 }, (_, i) => JSON.stringify(fullTextPaper(i))).join("\n")}\n`,
  );
  writeFileSync(join(dir, "c-feed.json"), JSON.stringify(FEED, null, 2));
  writeFileSync(join(dir, "d-study.md"), MD);
  writeFileSync(join(dir, "notes.txt"), "not a known format");
}

interface Summary {
  pieces: number;
  sent: number;
  alreadyImported: number;
  failedPieces: number;
  interrupted: boolean;
  exitCode: number;
  counts: { created: number; updated: number; unchanged: number; failed: number };
}

// ------------------------------------------------------------------ lifecycle

beforeAll(async () => {
  // 127.0.0.1 allowed for the local-feed source below (nothing listens there: its run fails).
  server = await startServer({ fresh: true, allowHosts: "127.0.0.1" });
  expect(new URL(server.url).hostname).toBe("127.0.0.1");
  tmp = mkdtempSync(join(tmpdir(), "paperguru-cli-"));
  configPath = join(tmp, "config", "config.json");
  papers = join(tmp, "papers");
  writeFixtures(papers);
}, 300_000);

afterAll(() => {
  server?.stop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

// ------------------------------------------------------------------ tests

describe("paperguru CLI: usage", () => {
  it("prints help for the CLI and each command, and exits 2 on bad usage", async () => {
    const top = await cli(["--help"]);
    expect(top.code).toBe(0);
    for (const c of ["import", "context", "verify", "export", "sources add", "archives create", "log"])
      expect(top.out).toContain(c);
    const imp = await cli(["import", "--help"]);
    expect(imp.code).toBe(0);
    expect(imp.out).toContain("--restart");
    expect(imp.out).toContain("--state");
    expect((await cli(["sources", "--help"])).out).toContain("paperguru sources pause <id>");
    expect((await cli([])).code).toBe(2);
    const unknown = await cli(["frobnicate"]);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain('unknown command "frobnicate"');
    const flag = await cli(["route", "q", "--nope"]);
    expect(flag.code).toBe(2);
    expect(flag.err).toContain("--nope");
    expect((await cli(["context"])).code).toBe(2);
    expect((await cli(["context", "q", "--budget", "ten"])).err).toContain("--budget must be an integer");
  });

  it("help never cuts a word; typos get suggestions; a missing argument is named", async () => {
    const top = await cli(["--help"]);
    // Every command's whole usage appears in the overview.
    for (const usage of [
      "import <file|folder>... [--format <f>] [--state <file>] [--restart]",
      "chunks [--kind <k>]",
      "subscriptions add <name> --to <https-url>",
    ])
      expect(top.out).toContain(usage);
    for (const l of top.out.split("\n")) expect(l.length, l).toBeLessThanOrEqual(160);
    for (const name of ["import", "context", "revise", "webhooks add"]) {
      const h = await cli([...name.split(" "), "--help"]);
      for (const l of h.out.split("\n").filter((x) => x.startsWith("  ") && x.length > 34))
        expect(l.length, l).toBeLessThanOrEqual(100);
    }
    const typo = await cli(["contxt", "q"]);
    expect(typo.code).toBe(2);
    expect(typo.err).toContain('did you mean "context"');
    expect((await cli(["sources", "lst"])).err).toContain('did you mean "sources list"');
    const flag = await cli(["context", "q", "--budjet", "100"]);
    expect(flag.err).toContain("did you mean --budget");
    const missing = await cli(["context"]);
    expect(missing.err).toContain("missing argument <query>");
    expect(missing.err).not.toContain("missing argument: ");
    expect((await cli(["entity", "rename", "method:x"])).err).toContain("missing argument <name>");
  });

  it("keeps settings in a 0600 config file; env and flags override it", async () => {
    const set = await cli(["config", "set", "url", "http://127.0.0.1:9"]);
    expect(set.code).toBe(0);
    expect(statSync(configPath).mode & 0o777).toBe(0o600);
    // The environment (PAPERGURU_URL, set by cli()) wins over the file.
    let show = json<{ settings: { url: { value: string; origin: string } } }>(
      (await cli(["config", "show", "--json"])).out,
    );
    expect(show.settings.url).toEqual({ value: server.url, origin: "env" });
    show = json((await cli(["config", "show", "--json"], { env: { PAPERGURU_URL: undefined } })).out);
    expect(show.settings.url).toEqual({ value: "http://127.0.0.1:9", origin: "config" });
    show = json(
      (await cli(["config", "show", "--json", "--url", "http://127.0.0.1:7"], { env: { PAPERGURU_URL: undefined } }))
        .out,
    );
    expect(show.settings.url).toEqual({ value: "http://127.0.0.1:7", origin: "flag" });
    expect((await cli(["config", "set", "colour", "blue"])).code).toBe(2);
    expect((await cli(["config", "set", "url", "ftp://x"])).code).toBe(2);
    expect((await cli(["config", "unset", "url"])).code).toBe(0);
    expect(json<Record<string, string>>(readFileSync(configPath, "utf8")).url).toBeUndefined();
  });

  it("reports an unreachable server and needs keys before calling", async () => {
    const down = await cli(["context", "q", "--archive", "x", "--key", "k", "--url", "http://127.0.0.1:9"]);
    expect(down.code).toBe(1);
    expect(down.err).toContain("cannot reach PaperGuru at http://127.0.0.1:9");
    expect(down.err).toContain("hint:");
    const noKey = await cli(["context", "q", "--archive", "x"]);
    expect(noKey.code).toBe(2);
    expect(noKey.err).toContain("no key: pass --key");
    expect((await cli(["archives", "list"])).err).toContain("needs the admin key");
  });
});

describe("paperguru CLI: against a running worker", () => {
  const admin = () => ({ PAPERGURU_ADMIN_KEY: server.adminKey });
  let anchorsFile = "";

  it("creates an archive, saves its key, and manages keys", async () => {
    const created = await cli(["archives", "create", "cli-test", "--name", "CLI test", "--save"], { env: admin() });
    expect(created.code, created.err).toBe(0);
    const secret = /: (pgk_\w+)/.exec(created.out)?.[1];
    expect(secret).toBeTruthy();
    const cfg = json<{ key: string; archive: string }>(readFileSync(configPath, "utf8"));
    expect(cfg).toMatchObject({ key: secret, archive: "cli-test" });
    expect(statSync(configPath).mode & 0o777).toBe(0o600);
    expect((await cli(["config", "show"])).out).not.toContain(secret as string);

    const again = await cli(["archives", "create", "cli-test"], { env: admin() });
    expect(again.code).toBe(1);
    expect(again.err).toMatch(/error: conflict \(HTTP 409\)/);

    const list = await cli(["archives", "list"], { env: admin() });
    expect(list.out).toMatch(/cli-test\s+CLI test/);

    const key = json<{ id: string; secret: string; scopes: string[] }>(
      (await cli(["keys", "create", "--scopes", "read", "--label", "reader", "--json"], { env: admin() })).out,
    );
    expect(key.scopes).toEqual(["read"]);
    expect((await cli(["keys", "list"], { env: admin() })).out).toMatch(new RegExp(`${key.id}\\s+read\\s+reader`));
    // A read key cannot import: the server's message, field and hint are printed.
    const denied = await cli(["import", papers, "--key", key.secret, "--state", join(tmp, "denied.json")]);
    expect(denied.code).toBe(1);
    expect(denied.err + denied.out).toMatch(/FAILED forbidden \(HTTP 403\)/);
    expect((await cli(["keys", "revoke", key.id], { env: admin() })).out).toContain(`revoked ${key.id}`);
    const revoked = await cli(["archives", "get", "--key", key.secret]);
    expect(revoked.code).toBe(1);
    expect(revoked.err).toContain("unauthorized (HTTP 401)");
    expect((await cli(["keys", "revoke", key.id], { env: admin() })).code).toBe(1);
  });

  it("imports a folder with progress, survives an interruption, resumes, and re-runs as a no-op", async () => {
    const state = join(tmp, ".paperguru-import-state.json");
    // Run 1: Ctrl-C (the injected interrupt hook) right after the first piece is acknowledged.
    let fired = false;
    const first = await cli(["import", "papers"], {
      watch: (chunk, interrupt) => {
        if (!fired && /^\[1\/6\]/m.test(chunk)) {
          fired = true;
          interrupt();
        }
      },
    });
    expect(first.code).toBe(130);
    expect(first.out).toMatch(/\[1\/6\] papers\/a-refs\.bib: bibtex, 2 records: 2 created/);
    expect(first.out).toContain("skipping papers/notes.txt: unknown format");
    expect(first.out).toContain("interrupted: 1 of 6 pieces sent");
    expect(first.out).toContain("run the same command again to resume");
    expect(Object.keys(readState(state)?.pieces ?? {})).toHaveLength(1);

    // Run 2: --stop-after 2 sends two more pieces and stops the same way.
    const second = json<Summary>((await cli(["import", "papers", "--stop-after", "2", "--json"])).out);
    expect(second).toMatchObject({ pieces: PIECES, sent: 2, alreadyImported: 1, interrupted: true, exitCode: 130 });
    expect(Object.keys(readState(state)?.pieces ?? {})).toHaveLength(3);

    // Run 3: resumes with the remaining pieces.
    const third = await cli(["import", "papers", "--json"]);
    expect(third.code, third.err).toBe(0);
    const s3 = json<Summary>(third.out);
    expect(s3).toMatchObject({ sent: 3, alreadyImported: 3, failedPieces: 0, interrupted: false });
    expect(third.err).toContain("[1/6] papers/a-refs.bib: already imported, skipped");
    expect(third.err).toMatch(/\[6\/6\] papers\/d-study\.md: markdown, 1 record: \d+ created/);
    expect(Object.keys(readState(state)?.pieces ?? {})).toHaveLength(PIECES);

    // Nothing was sent twice: every run created, none updated or found unchanged.
    const s1 = /created (\d+), updated (\d+), unchanged (\d+), failed (\d+)/.exec(first.out);
    const created = Number(s1?.[1]) + second.counts.created + s3.counts.created;
    for (const s of [second, s3]) expect([s.counts.updated, s.counts.unchanged, s.counts.failed]).toEqual([0, 0, 0]);
    expect(created).toBeGreaterThanOrEqual(2 + 25 * 3 + 2 + 1);

    // Run 4: everything is in the state file; nothing is sent.
    const fourth = json<Summary>((await cli(["import", "papers", "--json"])).out);
    expect(fourth).toMatchObject({ sent: 0, alreadyImported: PIECES, exitCode: 0 });

    // Run 5: --restart sends everything again; the server reports it all unchanged.
    const fifth = await cli(["import", "papers", "--restart"]);
    expect(fifth.code).toBe(0);
    expect(fifth.out).toContain(`done: ${PIECES} of ${PIECES} pieces sent`);
    expect(fifth.out).toContain(`created 0, updated 0, unchanged ${created}, failed 0`);
  }, 120_000);

  it("draws a progress bar with records/s on a terminal", async () => {
    const r = await cli(["import", "papers", "--restart", "--state", join(tmp, "tty-state.json")], { tty: true });
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/importing .*\d+% \| \d+\/\d+ records \| [\d.]+ records\/s/);
    expect(r.out).not.toContain("[1/6]");
    expect(r.out).toContain("done: 6 of 6 pieces sent");
  }, 60_000);

  it("prints context cards readably and as JSON, and verifies their anchors", async () => {
    const readable = await cli(["context", "graph memory for long-horizon agents", "--budget", "1500"]);
    expect(readable.code, readable.err).toBe(0);
    expect(readable.out).toMatch(/^context for "graph memory for long-horizon agents" as of /);
    expect(readable.out).toMatch(/\[1\] Paper \d+: graph memory/);
    expect(readable.out).toMatch(/arxiv:2301\.\d+@v1 · paper · \d+ tokens/);
    expect(readable.out).toContain("claim: ");
    expect(readable.out).toMatch(/anchors:\n {6}arxiv:2301\.\d+@v1 \[\d+,\d+\) "/);

    const raw = await cli(["context", "graph memory for long-horizon agents", "--json"]);
    const res = json<ContextResponse>(raw.out);
    expect(res.cards.length).toBeGreaterThan(0);
    const n = res.cards.flatMap((c) => c.anchored_spans).length;
    expect(n).toBeGreaterThan(0);
    anchorsFile = join(tmp, "context.json");
    writeFileSync(anchorsFile, raw.out);

    const ok = await cli(["verify", "context.json"]);
    expect(ok.code, ok.err).toBe(0);
    expect(ok.out).toContain(`${n}/${n} anchors verified`);
    expect(ok.out).toMatch(/^ok {8}arxiv:2301\.\d+@v1 \[/m);
    // From stdin, as `paperguru context ... --json | paperguru verify -`.
    expect((await cli(["verify", "-"], { stdin: raw.out })).code).toBe(0);

    // A tampered snippet: MISMATCH and exit 1.
    const anchors = res.cards.flatMap((c) => c.anchored_spans);
    const first = anchors[0] as (typeof anchors)[number];
    const bad = [{ ...first, snippet: `X${first.snippet.slice(1)}` }, ...anchors.slice(1)];
    writeFileSync(join(tmp, "bad.json"), JSON.stringify({ anchors: bad }));
    const mismatch = await cli(["verify", "bad.json"]);
    expect(mismatch.code).toBe(1);
    expect(mismatch.out).toMatch(/^MISMATCH {2}arxiv:2301\.\d+@v1 \[\d+,\d+\) snippet_mismatch/m);
    expect(mismatch.out).toContain(`${n - 1}/${n} anchors verified`);
    expect((await cli(["verify", "missing.json"])).code).toBe(2);
    writeFileSync(join(tmp, "other.json"), '{"foo": 1}');
    expect((await cli(["verify", "other.json"])).code).toBe(2);
  });

  it("routes a query readably and as JSON", async () => {
    const r = await cli(["route", "entity resolution", "--limit", "3"]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/selected:\n\s+#\s+chunk@version\s+score\s+relevance\s+depth\s+via/);
    expect(r.out).toContain("candidates (per-expert scores):");
    const j = json<{ selected: unknown[]; candidates: unknown[] }>(
      (await cli(["route", "entity resolution", "--json"])).out,
    );
    expect(j.selected.length).toBeGreaterThan(0);
    const old = json<{ selected: unknown[] }>(
      (await cli(["route", "entity resolution", "--json", "--as-of", "2000-01-01"])).out,
    );
    expect(old.selected).toEqual([]);
  });

  it("re-embeds the archive with the server's embedder, waiting for the queued job", async () => {
    const st = await cli(["archives", "reembed", "--status"]);
    expect(st.code, st.err).toBe(0);
    expect(st.out).toContain(
      "embedding: current; archive pg-hashed-tf-v1 (384 dims), embedder pg-hashed-tf-v1 (384 dims)",
    );
    const r = await cli(["archives", "reembed", "--force", "--wait"]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain("re-embed started for cli-test");
    expect(r.out).toMatch(/re-embed \d+ done: (\d+)\/\1 heads in \d+ pages/);
    const again = json<{ started: boolean; embedding: { status: string } }>(
      (await cli(["archives", "reembed", "--json"])).out,
    );
    expect(again).toMatchObject({ started: false, embedding: { status: "current" } });
  });

  it("exports bibtex and json, or reports the server's 404 cleanly while the export route is missing", async () => {
    const probe = await fetch(`${server.url}/v1/archives/cli-test/export?format=json`, {
      headers: { authorization: `Bearer ${json<{ key: string }>(readFileSync(configPath, "utf8")).key}` },
    });
    const missing = probe.status === 404 && /no route/.test(await probe.text());
    const bib = await cli(["export", "--format", "bibtex"]);
    if (missing) {
      expect(bib.code).toBe(1);
      expect(bib.err).toContain("error: not_found (HTTP 404): no route GET /v1/archives/cli-test/export");
      expect(bib.err).toContain("hint: see /openapi.json");
      expect(bib.out).toBe("");
      return;
    }
    expect(bib.code, bib.err).toBe(0);
    expect(bib.out).toMatch(/@\w+\{/);
    expect(bib.out).toContain("HippoRAG");
    const out = await cli(["export", "--format", "json", "--out", "export.json"]);
    expect(out.code, out.err).toBe(0);
    expect(out.err).toMatch(/wrote \d+ bytes of json to export\.json/);
    expect(() => JSON.parse(readFileSync(join(tmp, "export.json"), "utf8"))).not.toThrow();
    // The json dump re-imports into another archive (format detected from its marker).
    const copy = json<{ key: { secret: string } }>(
      (await cli(["archives", "create", "cli-copy", "--json"], { env: { PAPERGURU_ADMIN_KEY: server.adminKey } })).out,
    );
    const env = { PAPERGURU_KEY: copy.key.secret, PAPERGURU_ARCHIVE: "cli-copy" };
    const re = await cli(["import", "export.json", "--state", join(tmp, "copy-state.json")], { env });
    expect(re.code, re.err + re.out).toBe(0);
    expect(re.out).toMatch(/export\.json: archive, \d+ records: [1-9]\d* created/);
    // Importing the same dump again is a no-op.
    const again = await cli(["import", "export.json", "--state", join(tmp, "copy-state-2.json")], { env });
    expect(again.code, again.err + again.out).toBe(0);
    expect(again.out).toMatch(/: 0 created, 0 updated, [1-9]\d* unchanged, 0 failed/);
    // A dump whose content no longer matches its recorded hash fails: exit 1, the chunk not imported.
    const dump = JSON.parse(readFileSync(join(tmp, "export.json"), "utf8"));
    dump.chunks[0].versions[0].content += " (edited by hand)";
    writeFileSync(join(tmp, "tampered.json"), JSON.stringify(dump));
    const bad = await cli(["import", "tampered.json", "--state", join(tmp, "tampered-state.json")], {
      env: { ...env, PAPERGURU_ARCHIVE: "cli-copy" },
    });
    expect(bad.code, bad.err + bad.out).toBe(1);
    expect(bad.err + bad.out).toContain("does not match its artifact_hash");
    const ctx = await cli(["export", "--format", "markdown", "--query", "graph memory", "--budget", "1000"]);
    expect(ctx.code, ctx.err).toBe(0);
    expect(ctx.out).toMatch(/arxiv:2301\.\d+@v1/);
    expect((await cli(["export", "--format", "mermaid", "--query", "graph memory"])).code).toBe(2);
  });

  it("rejects unknown export formats before calling", async () => {
    const r = await cli(["export", "--format", "docx"]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("unknown --format docx");
    expect((await cli(["export"])).code).toBe(2);
  });

  it("manages sources and shows the ingest log", async () => {
    const add = await cli([
      "sources",
      "add",
      "url",
      "--id",
      "local-feed",
      "--location",
      "http://127.0.0.1:9/feed.json",
      "--paused",
    ]);
    expect(add.code, add.err).toBe(0);
    expect(add.out).toContain("source local-feed added (url, paused)");
    expect((await cli(["sources", "list"])).out).toMatch(/local-feed\s+url\s+paused\s+never run/);
    expect((await cli(["sources", "resume", "local-feed"])).out).toContain("source local-feed resumed");
    expect((await cli(["sources", "pause", "local-feed"])).out).toContain("source local-feed paused");
    // Nothing listens on 127.0.0.1:9: the run fails and the CLI exits 1.
    const run = await cli(["sources", "run", "local-feed"]);
    expect(run.code).toBe(1);
    expect(run.out).toContain("source local-feed: error");
    expect((await cli(["sources", "delete", "local-feed"])).out).toContain("deleted source local-feed");
    const gone = await cli(["sources", "delete", "local-feed"]);
    expect(gone.code).toBe(1);
    expect(gone.err).toContain("error: not_found (HTTP 404): no source local-feed");
    expect(gone.err).toContain("field: source");
    expect((await cli(["sources", "add", "ftp"])).code).toBe(2);

    const log = await cli(["log", "--limit", "5"]);
    expect(log.code).toBe(0);
    expect(log.out).toMatch(/import\s+ok\s+markdown:d-study\.md/);
    const entries = json<{ entries: Array<{ origin: string }> }>((await cli(["log", "--json"])).out).entries;
    expect(entries.filter((e) => e.origin === "import").length).toBeGreaterThanOrEqual(PIECES * 2);
  });

  it("notes, browse, revise, history, entities, deprecate, forget; the admin key serves when no archive key is set", async () => {
    const env = { PAPERGURU_ARCHIVE: "cli-test" };
    const added = await cli(["note", "We keep the PageRank damping at 0.85 for HippoRAG.", "--tag", "team:core"], {
      env,
    });
    expect(added.code, added.err).toBe(0);
    const id = /^(note:[0-9a-f]{12}): created \(version 1\)$/m.exec(added.out)?.[1] as string;
    expect(id).toBeTruthy();
    // The same text again is the same note (a retry does not duplicate it).
    expect(
      (await cli(["note", "We keep the PageRank damping at 0.85 for HippoRAG.", "--tag", "team:core"], { env })).out,
    ).toContain(`${id}: unchanged`);
    const listed = await cli(["chunks", "--kind", "note", "--tag", "team:core"], { env });
    expect(listed.out).toContain(id);
    const all = await cli(["chunks", "--all", "--limit", "2", "--json"], { env });
    const lines = all.out.trim().split("\n");
    expect(lines.length).toBeGreaterThan(4);
    expect(new Set(lines.map((l) => json<{ id: string }>(l).id)).size).toBe(lines.length);

    const shown = await cli(["show", id, "--start", "12", "--end", "20"], { env });
    expect(shown.out).toBe("PageRank\n");
    const revised = await cli(
      ["revise", id, "--content", "We now keep the PageRank damping at 0.5.", "--valid-from", "2030-01-01"],
      { env },
    );
    expect(revised.out).toContain(`${id}: updated (version 2)`);
    expect((await cli(["show", id, "--version", "1"], { env })).out).toContain("0.85");
    const hist = await cli(["history", id], { env });
    expect(hist.out).toMatch(/2 versions/);
    expect(hist.out).toMatch(/^2\s+2030-01-01T00:00:00.000Z/m);
    // Tags survive a revise made from the CLI.
    expect((await cli(["chunks", "--tag", "team:core", "--as-of", "2031-01-01"], { env })).out).toContain(id);

    expect((await cli(["resolve", "HippoRAG"], { env })).out).toMatch(/HippoRAG -> /);
    const ents = await cli(["entities", "--limit", "500"], { env });
    expect(ents.code).toBe(0);
    expect(ents.out).toMatch(/^id\s+type\s+names\s+name/);

    const dep = await cli(["deprecate", id, "--reason", "superseded", "--at", "2031-06-01"], { env });
    expect(dep.out).toContain(`deprecated ${id}`);
    expect((await cli(["history", id], { env })).out).toContain("superseded");

    const noYes = await cli(["forget", id], { env });
    expect(noYes.code).toBe(2);
    expect(noYes.err).toContain("--yes");
    // No archive key configured anywhere: the admin key serves.
    const gone = await cli(["forget", id, "--yes"], {
      env: {
        ...env,
        PAPERGURU_ADMIN_KEY: server.adminKey,
        PAPERGURU_KEY: undefined,
        PAPERGURU_CONFIG: join(tmp, "no-config.json"),
      },
    });
    expect(gone.code, gone.err).toBe(0);
    expect(gone.out).toMatch(/deleted chunk note:[0-9a-f]{12}: 2 versions/);
    expect((await cli(["show", id], { env })).code).toBe(1);
    expect((await cli(["deletions"], { env })).out).toMatch(new RegExp(`chunk\\s+${id}\\s+admin`));
    const nb = await cli(["neighbours", "decision:cache"], { env });
    expect(nb.code, nb.err).toBe(0);
  });

  it("keeps one import state per archive in a shared state file", async () => {
    const admin = { PAPERGURU_ADMIN_KEY: server.adminKey };
    const second = json<{ archive: { id: string }; key: { secret: string } }>(
      (await cli(["archives", "create", "cli-second", "--json"], { env: admin })).out,
    );
    const state = join(tmp, "shared-state.json");
    const md = join(papers, "d-study.md");
    expect((await cli(["import", md, "--state", state], { env: { PAPERGURU_ARCHIVE: "cli-test" } })).code).toBe(0);
    const other = { PAPERGURU_ARCHIVE: "cli-second", PAPERGURU_KEY: second.key.secret };
    const first = await cli(["import", md, "--state", state], { env: other });
    expect(first.code, first.err).toBe(0);
    // The other archive's entry did not make this one skip the file.
    expect(first.out + first.err).not.toContain("already imported");
    expect(Object.keys(readState(state, "cli-test")?.pieces ?? {})).toHaveLength(1);
    expect(Object.keys(readState(state, "cli-second")?.pieces ?? {})).toHaveLength(1);
    const again = await cli(["import", md, "--state", state], { env: other });
    expect(again.out + again.err).toContain("1 pieces already imported");
  });

  it("manages webhooks and event subscriptions", async () => {
    const env = { PAPERGURU_ARCHIVE: "cli-test", PAPERGURU_ADMIN_KEY: server.adminKey };
    const hook = await cli(["webhooks", "add", "feed", "--kind", "generic"], { env });
    expect(hook.code, hook.err).toBe(0);
    expect(hook.out).toMatch(/secret: whsec_/);
    expect((await cli(["webhooks", "list"], { env })).out).toMatch(/feed\s+generic\s+http:\/\/127\.0\.0\.1/);
    expect((await cli(["webhooks", "deliveries", "feed"], { env })).out).toBe("no deliveries\n");
    expect((await cli(["webhooks", "delete", "feed"], { env })).out).toContain("deleted webhook feed");
    // Only dead inbound deliveries are announced here, so nothing is sent to the network. The host
    // is allow-listed: any other name is looked up over DNS when it is registered.
    const sub = await cli(
      ["subscriptions", "add", "ops", "--to", "http://127.0.0.1:9/pg", "--events", "delivery.dead"],
      { env },
    );
    expect(sub.code, sub.err).toBe(0);
    expect(sub.out).toMatch(/secret: [0-9a-f]{64}/);
    expect((await cli(["subscriptions", "list"], { env })).out).toMatch(
      /ops\s+http:\/\/127\.0\.0\.1:9\/pg\s+delivery\.dead/,
    );
    expect((await cli(["subscriptions", "events", "ops"], { env })).out).toBe("no events\n");
    const bad = await cli(["subscriptions", "add", "x", "--to", "http://169.254.169.254/"], { env });
    expect(bad.code).toBe(1);
    expect(bad.err).toContain("field: url");
    expect((await cli(["subscriptions", "delete", "ops"], { env })).out).toContain("deleted subscription ops");
  });

  it("bin/paperguru.mjs: a real SIGINT saves the state and exits 130; the next run resumes", async () => {
    // A second archive, so every piece creates records (slow enough to interrupt mid-run).
    const made = await cli(["archives", "create", "cli-sigint", "--json"], { env: admin() });
    const key = json<{ key: { secret: string } }>(made.out).key.secret;
    const state = join(tmp, "sigint-state.json");
    const env = {
      ...process.env,
      PAPERGURU_CONFIG: join(tmp, "none.json"),
      PAPERGURU_URL: server.url,
      PAPERGURU_KEY: key,
      PAPERGURU_ARCHIVE: "cli-sigint",
    };
    const args = [join(ROOT, "bin", "paperguru.mjs"), "import", papers, "--state", state];
    const child = spawn(process.execPath, args, { cwd: tmp, env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let sent = false;
    child.stdout.on("data", (d) => {
      out += String(d);
      if (!sent && /\[1\/6\]/.test(out)) {
        sent = true;
        child.kill("SIGINT");
      }
    });
    child.stderr.on("data", (d) => {
      out += String(d);
    });
    const code = await new Promise<number | null>((r) => child.on("close", (c) => r(c)));
    expect(code, out).toBe(130);
    expect(out).toContain("interrupted: finishing the piece in flight");
    const done = Object.keys(readState(state)?.pieces ?? {}).length;
    expect(done).toBeGreaterThanOrEqual(1);
    expect(done).toBeLessThan(PIECES);

    const resumed = await cli([
      "import",
      "papers",
      "--state",
      state,
      "--json",
      "--key",
      key,
      "--archive",
      "cli-sigint",
    ]);
    expect(resumed.code, resumed.err).toBe(0);
    expect(json<Summary>(resumed.out)).toMatchObject({ sent: PIECES - done, alreadyImported: done });
    expect(existsSync(state)).toBe(true);
  }, 60_000);
});
