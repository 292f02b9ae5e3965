/**
 * Every CLI example of the documentation runs: each line of a fenced code block in README.md or
 * docs/*.md whose command is `paperguru …` or `npx paperguru …` (after `NAME=value` assignments) is
 * run in-process through `main(argv, io)` against a throwaway local Worker, in page order, one page
 * per session (its own working directory, HOME and config file), and must exit 0. `a | b` feeds a's
 * stdout to b, `a && b` runs b after a. The environment is what the pages assume: PAPERGURU_URL and
 * $U are the server, $KEY a key of the archive `mine`, and the files they import exist (small
 * fixtures written here). The local admin key the pages quote is the server's. A line of only
 * `NAME=value` words (or `export NAME=value …`) without a command substitution sets them for the
 * page's later lines; the documented local URL in one (the README's `export U=…`, the line npm start
 * prints) is the server's. The /docs page's examples (src/http/docs.ts) are a page too.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Server, startServer } from "../../scripts/lib/server";
import type { Io } from "../../src/cli/io";
import { main } from "../../src/cli/main";
import { PaperGuruClient } from "../../src/client";
import { API_DESCRIPTION } from "../../src/http/docs";

const ROOT = join(import.meta.dirname, "..", "..");
const DOC_ADMIN_KEY = "pg_admin_local_dev_key";
/** The URL npm start serves by default, as the pages' `export U=…` lines write it. */
const DOC_URL = "http://127.0.0.1:8787";

// ------------------------------------------------------------------ extraction

interface Example {
  page: string;
  line: number;
  text: string;
  /** A `paperguru` command, or a line of NAME=value words only. */
  kind: "cli" | "assign";
}

const ASSIGNMENTS = /^(?:export\s+)?(?:[A-Z_][A-Z0-9_]*=\S*\s*)+(?:#.*)?$/;

/** Code-block lines (continuations joined) that run `paperguru` or `npx paperguru`, or only set variables. */
function examples(page: string, markdown: string): Example[] {
  const out: Example[] = [];
  const lines = markdown.split("\n");
  let inBlock = false;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i] as string;
    if (/^\s*```/.test(raw)) {
      inBlock = !inBlock;
      continue;
    }
    if (!inBlock) continue;
    let text = raw;
    const start = i;
    while (/\\\s*$/.test(text) && i + 1 < lines.length) text = `${text.replace(/\\\s*$/, " ")}${lines[++i]}`;
    const command = text.trim().replace(/^(?:[A-Z_][A-Z0-9_]*=\S*\s+)*/, "");
    if (/^(?:npx\s+)?paperguru(?:\s|$)/.test(command))
      out.push({ page, line: start + 1, text: text.trim(), kind: "cli" });
    else if (ASSIGNMENTS.test(text.trim()) && !text.includes("$("))
      out.push({ page, line: start + 1, text: text.trim(), kind: "assign" });
  }
  return out;
}

type Token = { word: string } | { op: "|" | "&&" };

/** Shell words of one line: quotes, $VAR and ~ expansion, `|` and `&&`; a `#` word starts a comment. */
function tokenize(line: string, env: Record<string, string>): Token[] {
  const tokens: Token[] = [];
  let word = "";
  let inWord = false;
  const expand = (s: string) => s.replace(/\$(\w+)|\$\{(\w+)\}/g, (_, a, b) => env[a ?? b] ?? "");
  const flush = () => {
    if (inWord) tokens.push({ word });
    word = "";
    inWord = false;
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unclosed ' in: ${line}`);
      word += line.slice(i + 1, end);
      inWord = true;
      i = end;
    } else if (c === '"') {
      let j = i + 1;
      let s = "";
      while (j < line.length && line[j] !== '"') {
        if (line[j] === "\\" && j + 1 < line.length) j++;
        s += line[j];
        j++;
      }
      if (j >= line.length) throw new Error(`unclosed " in: ${line}`);
      word += expand(s);
      inWord = true;
      i = j;
    } else if (/\s/.test(c)) flush();
    else if (c === "#" && !inWord) break;
    else if (c === "|" && !inWord) tokens.push({ op: "|" });
    else if (c === "&" && line[i + 1] === "&" && !inWord) {
      tokens.push({ op: "&&" });
      i++;
    } else {
      let j = i;
      let s = "";
      while (j < line.length && !/[\s'"|&]/.test(line[j] as string)) s += line[j++];
      const home = !inWord && (s === "~" || s.startsWith("~/")) ? `${env.HOME}${s.slice(1)}` : s;
      word += expand(home);
      inWord = true;
      i = j - 1;
    }
  }
  flush();
  return tokens;
}

interface Step {
  env: Record<string, string>;
  argv: string[];
  /** How this step joins the previous one. */
  join: "|" | "&&" | null;
}

/** The line's commands: each `NAME=value ... [npx] paperguru args`, with how it joins the one before. */
function steps(tokens: Token[]): Step[] {
  const out: Step[] = [];
  let cur: string[] = [];
  let join: Step["join"] = null;
  const end = () => {
    const env: Record<string, string> = {};
    let k = 0;
    for (; k < cur.length; k++) {
      const m = /^([A-Z_][A-Z0-9_]*)=(.*)$/s.exec(cur[k] as string);
      if (!m) break;
      env[m[1] as string] = m[2] as string;
    }
    let rest = cur.slice(k);
    if (rest[0] === "npx") rest = rest.slice(1);
    if (rest[0] !== "paperguru") throw new Error(`not a paperguru command: ${cur.join(" ")}`);
    out.push({ env, argv: rest.slice(1), join });
    cur = [];
  };
  for (const t of tokens) {
    if ("op" in t) {
      end();
      join = t.op;
    } else cur.push(t.word);
  }
  end();
  return out;
}

// ------------------------------------------------------------------ running

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

async function run(argv: string[], env: Record<string, string>, cwd: string, stdin: string) {
  const out = sink();
  const err = sink();
  const io: Partial<Io> = {
    stdout: out.stream,
    stderr: err.stream,
    cwd,
    env,
    readStdin: async () => stdin,
    onInterrupt: () => () => {},
  };
  const code = await main(argv, io);
  return { code, out: out.text(), err: err.text() };
}

/** Runs one example line (or sets its variables in `env`); returns a failure message or null. */
async function runLine(ex: Example, env: Record<string, string>, cwd: string): Promise<string | null> {
  if (ex.kind === "assign") {
    const words = tokenize(ex.text, env).flatMap((t) => ("word" in t ? [t.word] : []));
    for (const w of words[0] === "export" ? words.slice(1) : words) {
      const at = w.indexOf("=");
      env[w.slice(0, at)] = w.slice(at + 1).replaceAll(DOC_URL, env.U as string);
    }
    return null;
  }
  let prev: { code: number; out: string; err: string } | null = null;
  for (const s of steps(tokenize(ex.text, env))) {
    if (s.join === "&&" && prev && prev.code !== 0) break;
    const stepEnv = { ...env, ...s.env };
    if (stepEnv.PAPERGURU_ADMIN_KEY === DOC_ADMIN_KEY) stepEnv.PAPERGURU_ADMIN_KEY = env.LOCAL_ADMIN_KEY as string;
    const argv = s.argv.map((a) => (a === DOC_ADMIN_KEY ? (env.LOCAL_ADMIN_KEY as string) : a));
    const res = await run(argv, stepEnv, cwd, s.join === "|" && prev ? prev.out : "");
    if (res.code !== 0)
      return `${ex.page}:${ex.line} exited ${res.code}: ${ex.text}\n  argv: ${JSON.stringify(argv)}\n  stderr: ${res.err}\n  stdout: ${res.out.slice(0, 2000)}`;
    prev = res;
  }
  return null;
}

// ------------------------------------------------------------------ fixtures

/** What the pages import: refs.bib and notes.md in the working directory, ~/papers/. */
const BIB = `@inproceedings{gutierrez2024hipporag,
  title = {HippoRAG: Neurobiologically Inspired Long-Term Memory for Large Language Models},
  author = {Gutierrez, Bernal Jim{\\'e}nez and Shu, Yiheng and Gu, Yu and Yasunaga, Michihiro and Su, Yu},
  booktitle = {Advances in Neural Information Processing Systems},
  year = {2024},
  eprint = {2405.14831},
  archivePrefix = {arXiv},
  abstract = {HippoRAG runs Personalized PageRank over a knowledge graph of passages to answer multi-hop questions.}
}
@article{lewis2020rag,
  title = {Retrieval-Augmented Generation for Knowledge-Intensive NLP Tasks},
  author = {Lewis, Patrick and Perez, Ethan},
  journal = {Advances in Neural Information Processing Systems},
  year = {2020},
  eprint = {2005.11401},
  archivePrefix = {arXiv},
  abstract = {Retrieval-augmented generation combines a parametric generator with a dense index of passages.}
}
`;

const STUDY = `# Routing Memory for Agents

We route over heads first and expand contents last, as HippoRAG does with PageRank.

## Method

Personalized PageRank spreads relevance from the seed passages of a query.

## Results

Recall@5 rises from 72.0 to 75.5 with longer synopses.
`;

const NOTES = `# Team notes

We keep the PageRank damping at 0.85 until the evaluation says otherwise.
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

function writeFixtures(dir: string) {
  mkdirSync(join(dir, "papers"), { recursive: true });
  writeFileSync(join(dir, "papers", "study.md"), STUDY);
  writeFileSync(join(dir, "papers", "refs.bib"), BIB);
  writeFileSync(join(dir, "refs.bib"), BIB);
  writeFileSync(join(dir, "notes.md"), NOTES);
  writeFileSync(join(dir, "main.bbl"), MAIN_BBL);
}

// ------------------------------------------------------------------ tests

const PAGES = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => `docs/${f}`),
];
const ALL = [
  ...PAGES.map((page) => ({ page, examples: examples(page, readFileSync(join(ROOT, page), "utf8")) })),
  { page: "src/http/docs.ts", examples: examples("src/http/docs.ts", API_DESCRIPTION) },
];

let server: Server;
let tmp: string;
let mineKey = "";

beforeAll(async () => {
  // The examples register subscriptions to public names (agent.example.com); this machine may have
  // no DNS-over-HTTPS to look them up, so names are judged by name only (test/worker/
  // registration-dns.test.ts covers the lookup at registration against a mocked resolver).
  server = await startServer({ fresh: true, vars: { DNS_RESOLVER: "none" } });
  tmp = mkdtempSync(join(tmpdir(), "paperguru-examples-"));
  // docs/ingest.md imports into an archive `mine` with $KEY.
  const admin = new PaperGuruClient(server.url, server.adminKey);
  mineKey = (await admin.createArchive({ id: "mine", name: "mine" })).key.secret;
}, 300_000);

afterAll(() => {
  server?.stop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe("the documentation's CLI examples", () => {
  it("finds them: the worked example, the README's and the CLI reference's", () => {
    const count = (page: string) =>
      ALL.find((p) => p.page === page)?.examples.filter((e) => e.kind === "cli").length ?? 0;
    expect(count("docs/cli.md")).toBeGreaterThanOrEqual(20);
    expect(count("docs/interfaces.md")).toBeGreaterThanOrEqual(10);
    expect(count("README.md")).toBeGreaterThanOrEqual(3);
    expect(count("src/http/docs.ts")).toBeGreaterThanOrEqual(5);
    const cli = ALL.find((p) => p.page === "docs/cli.md")?.examples.map((e) => e.text) ?? [];
    // One command of each system group, and a filtered context.
    for (const g of ["project ", "xkg ", "research ", "papers "])
      expect(
        cli.some((t) => t.includes(`paperguru ${g}`)),
        g,
      ).toBe(true);
    expect(cli.some((t) => /paperguru context .*--kinds/.test(t))).toBe(true);
  });

  it("tokenizes like a shell: quotes, variables, ~, pipes, && and comments", () => {
    const env = { HOME: "/h", U: "http://x" };
    const t = tokenize(`A=1 npx paperguru note "it's \\"q\\" $U" --tag 'a b' ~/p # c | d`, env);
    expect(t).toEqual([
      { word: "A=1" },
      { word: "npx" },
      { word: "paperguru" },
      { word: "note" },
      { word: 'it\'s "q" http://x' },
      { word: "--tag" },
      { word: "a b" },
      { word: "/h/p" },
    ]);
    const s = steps(tokenize("npx paperguru context q --json | npx paperguru verify - && paperguru log", env));
    expect(s.map((x) => [x.join, x.argv[0]])).toEqual([
      [null, "context"],
      ["|", "verify"],
      ["&&", "log"],
    ]);
    expect(() => steps(tokenize("npx paperguru log && rm -rf x", env))).toThrow(/not a paperguru command/);
  });

  for (const { page, examples: exs } of ALL.filter((p) => p.examples.some((e) => e.kind === "cli"))) {
    it(`${page}: ${exs.filter((e) => e.kind === "cli").length} examples exit 0`, async () => {
      const dir = join(tmp, page.replace(/[/.]/g, "_"));
      writeFixtures(dir);
      const env: Record<string, string> = {
        HOME: dir,
        PATH: process.env.PATH ?? "",
        PAPERGURU_CONFIG: join(dir, "config.json"),
        PAPERGURU_URL: server.url,
        U: server.url,
        KEY: mineKey,
        LOCAL_ADMIN_KEY: server.adminKey,
      };
      const failures: string[] = [];
      for (const ex of exs) {
        const f = await runLine(ex, env, dir);
        if (f) failures.push(f);
      }
      expect(failures.join("\n\n")).toBe("");
    }, 240_000);
  }
});
