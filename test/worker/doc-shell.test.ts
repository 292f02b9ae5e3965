/**
 * The shell examples of README.md, docs/*.md and the /docs page (src/http/docs.ts) run as written
 * (scripts/lib/doc-shell.ts), one page at a time against the Worker, each command of a page in order:
 *  - curl commands and the NAME=value / export / $(…) lines around them run here: every answer 2xx
 *    and containing its `# →` text, every URL from $U;
 *  - `paperguru` / `npx paperguru` commands are the CLI's: test/cli/examples.test.ts runs them
 *    against a local Worker;
 *  - the few commands that cannot run in a test are in SKIPS, each with its reason.
 * Any other command fails the inventory test: a new example either runs, or says here why not.
 *
 * docs/examples.md's curl examples run in test/worker/doc-examples.test.ts (one archive per section,
 * $A); here they are only inventoried.
 *
 * What a page may assume is where the quick start ends: $U, the archive `mine` and its key $KEY (the
 * quick starts, docs/api.md's and the /docs page's, create `mine` themselves). Storage is per test
 * file, so each page's archive ids get a suffix of its own on the way in (`mine` → `mine-p3-…`, in
 * request paths and in the id of a POST /v1/archives). The local admin key the pages quote is the
 * test's; `$U/cdn-cgi/handler/scheduled` (wrangler dev's cron tick) runs the Worker's cron handler;
 * arXiv answers with a fixture feed; the files the pages send (refs.bib, main.bbl, paper.pdf, .dev.vars) exist.
 */
import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import DEV_VARS from "../../.dev.vars.example?raw";
import README from "../../README.md?raw";
import {
  type Command,
  commands,
  isCli,
  problems,
  run,
  type Shell,
  type ShellRequest,
  sends,
  shellBlocks,
} from "../../scripts/lib/doc-shell";
import { API_DESCRIPTION } from "../../src/http/docs";
import entry from "../../src/index";
import { makePaperPdf } from "../fixtures/pdf-paper";
import ARXIV_FEED from "../fixtures/sources/arxiv-feed.xml?raw";
import { mockFetch } from "./fetch-guard";
import { ADMIN, api } from "./helpers";
import { WORKER } from "./worker";

const U = "http://paperguru.test";
/** What `npm start` prints and the README's `export U=` line says; here it is the Worker under test. */
const DOC_URL = "http://127.0.0.1:8787";
/** The local admin key the pages quote (.dev.vars.example). */
const DOC_ADMIN_KEY = "pg_admin_local_dev_key";

/** Commands that cannot run in a test, each with its reason. Matched against the whole command. */
const SKIPS: Array<{ command: RegExp; reason: string }> = [
  {
    command: /^npm install && npm start\b/,
    reason: "installs the dependencies and starts a local server: this test runs against the Worker itself",
  },
  {
    command: /^(?:[A-Z_]+=\S+ )+npm start$/,
    reason: "starts a local server with a model's settings (docs/models.md): no model is reachable from a test",
  },
  { command: /^npm test$/, reason: "runs the test suites, this one among them" },
  {
    command: /^npm run demo$/,
    reason: "scripts/demo.ts, a program of its own against a running server (PAPERGURU_URL), not a request",
  },
  {
    command: /^(?:npm run (?:bench|bench:e2e|bench:shards|eval)|npx tsx scripts\/probe-heavy\.ts)(?: |$)/,
    reason: "benchmarks and evaluations: minutes to hours of work on servers of their own",
  },
  {
    command: /^npm pack && cd \/tmp\/app && npm install /,
    reason: "packs the package and installs it in another folder (test/cli/package.test.ts does that)",
  },
  {
    command: /^claude mcp add /,
    reason: "configures Claude Code, a program outside this repository (the page's curl to $U/mcp runs)",
  },
];

/** Archives the quick starts create themselves; every other page starts with `mine` and $KEY. */
const CREATES_MINE = new Set(["docs/api.md", "src/http/docs.ts"]);

/** docs/examples.md runs in doc-examples.test.ts. */
const RUN_ELSEWHERE = new Set(["docs/examples.md"]);

const DOCS = import.meta.glob<string>("../../docs/*.md", { query: "?raw", import: "default", eager: true });
const PAGES: Array<{ page: string; commands: Command[] }> = [
  ["README.md", README] as const,
  ...Object.entries(DOCS)
    .map(([path, md]) => [path.replace(/^(\.\.\/)+/, ""), md] as const)
    .sort((a, b) => a[0].localeCompare(b[0])),
  ["src/http/docs.ts", API_DESCRIPTION] as const,
].map(([page, md]) => ({ page, commands: shellBlocks(md).flatMap(commands) }));

/** The command on one line (continuations joined), as SKIPS match it. */
const flat = (cmd: Command) => cmd.text.replace(/\\\n\s*/g, " ").replace(/\s+/g, " ");
const skipOf = (cmd: Command) => SKIPS.find((s) => s.command.test(flat(cmd)));
const runnable = (cmd: Command) => !skipOf(cmd) && !isCli(cmd);

/** What the pages send with --data-binary @file or read with grep. */
const BIB = `@inproceedings{gutierrez2024hipporag,
  title = {HippoRAG: Neurobiologically Inspired Long-Term Memory for Large Language Models},
  author = {Gutierrez, Bernal Jim{\\'e}nez and Shu, Yiheng and Gu, Yu and Yasunaga, Michihiro and Su, Yu},
  booktitle = {Advances in Neural Information Processing Systems},
  year = {2024},
  eprint = {2405.14831},
  archivePrefix = {arXiv},
  abstract = {HippoRAG runs Personalized PageRank over a knowledge graph of passages to answer multi-hop questions.}
}
`;

/** The reference list the pages import with format=bbl (natbib, as BibTeX writes it). */
const MAIN_BBL = String.raw`\begin{thebibliography}{2}
\bibitem[Lewis et~al.(2020)]{lewis2020rag}
Patrick Lewis and Ethan Perez.
\newblock Retrieval-augmented generation for knowledge-intensive {NLP} tasks.
\newblock \emph{arXiv preprint arXiv:2005.11401}, 2020.

\bibitem[Page et~al.(1999)]{page1999}
Lawrence Page, Sergey Brin, Rajeev Motwani, and Terry Winograd.
\newblock The {PageRank} citation ranking: Bringing order to the web.
\newblock Technical report, Stanford InfoLab, 1999.
\end{thebibliography}
`;

let pdf: Promise<Uint8Array> | undefined;
async function files(): Promise<Map<string, string | Uint8Array>> {
  pdf ??= makePaperPdf().then((g) => g.bytes);
  return new Map<string, string | Uint8Array>([
    ["refs.bib", BIB],
    ["main.bbl", MAIN_BBL],
    ["paper.pdf", await pdf],
    [".dev.vars", DEV_VARS],
  ]);
}

/** One request of a page to the Worker, with the page's archive ids made its own. */
async function send(req: ShellRequest, own: (id: string) => string): Promise<Response> {
  const url = new URL(req.url);
  if (url.pathname === "/cdn-cgi/handler/scheduled") {
    // wrangler dev's cron trigger: the Worker's scheduled handler, answered "ok" as wrangler does.
    const ctx = createExecutionContext();
    await entry.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: "*/5 * * * *" }), env, ctx);
    await waitOnExecutionContext(ctx);
    return new Response("ok");
  }
  url.pathname = url.pathname.replace(/^\/v1\/archives\/([^/]+)/, (_, id: string) => `/v1/archives/${own(id)}`);
  let body = req.body;
  if (req.method === "POST" && url.pathname === "/v1/archives" && typeof body === "string") {
    const created = JSON.parse(body) as { id: string };
    body = JSON.stringify({ ...created, id: own(created.id) });
  }
  const headers = { ...req.headers };
  if (headers.authorization === `Bearer ${DOC_ADMIN_KEY}`) headers.authorization = `Bearer ${ADMIN}`;
  return WORKER.fetch(url, { method: req.method, headers, body });
}

describe("the shell examples of README.md, docs/*.md and /docs", () => {
  it("finds the pages' commands", () => {
    const count = (page: string) => PAGES.find((p) => p.page === page)?.commands.length ?? 0;
    expect(count("README.md")).toBeGreaterThanOrEqual(10);
    expect(count("docs/api.md")).toBeGreaterThanOrEqual(4);
    expect(count("docs/ingest.md")).toBeGreaterThanOrEqual(15);
    expect(count("docs/interfaces.md")).toBeGreaterThanOrEqual(20);
    expect(count("src/http/docs.ts")).toBeGreaterThanOrEqual(10);
  });

  it("every command runs here, is the CLI's, or is skipped for a reason named in SKIPS", () => {
    const found: string[] = [];
    const used = new Set<RegExp>();
    for (const { page, commands: cmds } of PAGES)
      for (const cmd of cmds) {
        const skip = skipOf(cmd);
        if (skip) used.add(skip.command);
        else if (!isCli(cmd)) for (const p of problems(cmd)) found.push(`${page}:${cmd.line}: ${p}\n  ${cmd.text}`);
      }
    expect(found.join("\n")).toBe("");
    // The list stays small: an entry no command needs any more goes.
    expect(SKIPS.filter((s) => !used.has(s.command)).map((s) => s.command.source)).toEqual([]);
  });

  it("reads shell as bash does, and refuses what it cannot run", () => {
    const one = (text: string) => commands({ section: "", line: 1, text });
    const [cmd] = one(
      `KEY=$(curl -s "$U/x" -d '{"a":"b c"}' | node -pe 'JSON.parse(require("fs").readFileSync(0)).key') # note`,
    );
    expect(cmd?.text).toBe(
      `KEY=$(curl -s "$U/x" -d '{"a":"b c"}' | node -pe 'JSON.parse(require("fs").readFileSync(0)).key')`,
    );
    expect(problems(cmd as Command)).toEqual([]);
    const cmds = one(`curl -s $U/a \\\n  -H 'x: y'\n# → "ok":true\nnpx paperguru log\nnpm test`);
    expect(cmds.map((c) => [c.line, c.expect])).toEqual([
      [1, ['"ok":true']],
      [4, []],
      [5, []],
    ]);
    expect(isCli(cmds[1] as Command)).toBe(true);
    expect(problems(cmds[2] as Command)).toEqual(["a command this harness does not run: npm"]);
    expect(problems(one("curl -s $U/x | jq -r .a")[0] as Command)).toEqual([]);
    expect(problems(one("wrangler secret put ADMIN_KEY")[0] as Command)).toEqual([
      "a command this harness does not run: wrangler",
    ]);
    for (const host of ["http://127.0.0.1:8787/healthz", "localhost:8787/healthz", '"http://$HOST/x"'])
      expect(problems(one(`curl -s ${host}`)[0] as Command)[0]).toMatch(/does not start with \$U/);
    expect(problems(one("curl -s --compressed $U/x")[0] as Command)).toEqual([
      "a curl option this harness does not know: --compressed",
    ]);
  });

  it("runs the pages' pipelines as bash, openssl, node, jq, grep and cut do", async () => {
    const sh: Shell = {
      vars: { SECRET: "k", BODY: "{}" },
      files: new Map([[".dev.vars", "# comment\nADMIN_KEY=a=b\n"]]),
      sent: [],
      send: async () => Response.json({ key: { secret: "pgk_1" } }),
    };
    const text = [
      `TS=1700000000; SIG=sha256=$(printf '%s.%s' "$TS" "$BODY" | openssl dgst -sha256 -hmac "$SECRET" | sed 's/^.* //')`,
      "ADMIN=$(grep '^ADMIN_KEY=' .dev.vars | cut -d= -f2-)",
      `K1=$(curl -s -X POST $U/v1/archives | node -pe 'JSON.parse(require("fs").readFileSync(0)).key.secret')`,
      'export K2=$(curl -s -X POST $U/v1/archives | jq -r .key.secret) K3="$K1 x"',
    ].join("\n");
    sh.vars.U = "http://h";
    for (const cmd of commands({ section: "", line: 1, text })) await run(cmd, sh);
    // printf '%s.%s' 1700000000 '{}' | openssl dgst -sha256 -hmac k | sed 's/^.* //'
    expect(sh.vars.SIG).toBe("sha256=c6ef4734033cee2367414a0939385eca0397754aa7a59716da7463a9298b5146");
    expect(sh.vars).toMatchObject({ ADMIN: "a=b", K1: "pgk_1", K2: "pgk_1", K3: "pgk_1 x" });
    expect(sh.sent.map((s) => [s.request.method, s.request.headers.accept])).toEqual([
      ["POST", "*/*"],
      ["POST", "*/*"],
    ]);
    await expect(run(commands({ section: "", line: 1, text: "curl -s $U/$NOPE" })[0] as Command, sh)).rejects.toThrow(
      /\$NOPE is not set/,
    );
  });

  PAGES.forEach(({ page, commands: cmds }, n) => {
    const runs = cmds.filter(runnable);
    if (!runs.some(sends) || RUN_ELSEWHERE.has(page)) return;
    it(`${page}: its ${runs.length} commands run, each answer 2xx with what the page says`, async () => {
      mockFetch({
        "https://export.arxiv.org/api/query": () =>
          new Response(ARXIV_FEED, { headers: { "content-type": "application/atom+xml" } }),
      });
      const suffix = `p${n}-${Date.now().toString(36)}`;
      const own = (id: string) => `${id}-${suffix}`;
      const vars: Record<string, string> = { U };
      if (!CREATES_MINE.has(page)) {
        const made = await api("POST", "/v1/archives", { id: own("mine"), name: "mine" });
        expect(made.status).toBe(201);
        vars.KEY = made.body.key.secret as string;
      }
      const sh: Shell = {
        vars,
        files: await files(),
        sent: [],
        send: (req) => send(req, own),
        assign: (_name, value) => value.replaceAll(DOC_URL, U),
      };
      for (const cmd of runs) {
        try {
          await run(cmd, sh);
        } catch (e) {
          throw new Error(`${page} ${(e as Error).message}`);
        }
      }
      expect(sh.sent.length).toBeGreaterThan(0);
    });
  });
});
