/** Every `paperguru` command (the dispatcher and help are in main.ts). */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import {
  type Anchor,
  CONTEXT_EXPORT_FORMATS,
  type ContextBody,
  type ContextExportFormat,
  EXPORT_FORMATS,
  type ExportFormat,
  type ReembedStarted,
  type ReembedStatus,
  type RouteBody,
  type Source,
  type SourceKind,
} from "../client";
import { SOURCE_KINDS } from "../core/sources/types";
import type { Command, Run } from "./command";
import { CONFIG_KEYS, type ConfigKey, loadConfig, saveConfig, setConfigValue } from "./config";
import { DEFAULT_STATE_FILE, FORMATS, type Format, renderSummary, runImport } from "./import";
import { EXIT, mask, table, UsageError } from "./io";
import { ADMIN_COMMANDS, MEMORY_COMMANDS } from "./memory";
import {
  CODE_OPTIONS,
  codeFromFlags,
  FILTER_OPTIONS,
  FOLLOW_OPTION,
  filterFromFlags,
  followFromFlags,
  RANKING_OPTIONS,
  rankingFromFlags,
  rewriteCodeChunks,
  rewriteMmr,
} from "./query-flags";
import { extractAnchors, renderCard, renderContext, renderRoute, renderTrace, renderVerify } from "./render";
import { SYSTEM_COMMANDS } from "./systems";

const printJson = (r: Run, v: unknown) => r.out(JSON.stringify(v, null, 2));

// ------------------------------------------------------------------ config

const configSet: Command = {
  name: "config set",
  args: `<${CONFIG_KEYS.join("|")}> <value>`,
  summary: "Store a setting in the config file (created with mode 0600).",
  positionals: [2, 2],
  async run(r) {
    const [name, value] = r.positionals as [string, string];
    if (!(CONFIG_KEYS as readonly string[]).includes(name))
      throw new UsageError(`unknown setting ${name}; use one of ${CONFIG_KEYS.join(", ")}`, "config set");
    saveConfig(r.settings.path, setConfigValue(loadConfig(r.settings.path), name as ConfigKey, value));
    r.out(`${name} = ${name.endsWith("key") ? mask(value) : value} (saved to ${r.settings.path})`);
    return EXIT.ok;
  },
};

const configUnset: Command = {
  name: "config unset",
  args: `<${CONFIG_KEYS.join("|")}>`,
  summary: "Remove a setting from the config file.",
  positionals: [1, 1],
  async run(r) {
    const name = r.positionals[0] as string;
    if (!(CONFIG_KEYS as readonly string[]).includes(name))
      throw new UsageError(`unknown setting ${name}; use one of ${CONFIG_KEYS.join(", ")}`, "config unset");
    saveConfig(r.settings.path, setConfigValue(loadConfig(r.settings.path), name as ConfigKey, undefined));
    r.out(`${name} removed from ${r.settings.path}`);
    return EXIT.ok;
  },
};

const configShow: Command = {
  name: "config show",
  args: "",
  summary: "The settings in effect and where each comes from (keys are masked).",
  positionals: [0, 0],
  async run(r) {
    const s = r.settings;
    const rows = [
      ["url", s.url.value ?? "(unset)", s.url],
      ["key", mask(s.key.value), s.key],
      ["archive", s.archive.value ?? "(unset)", s.archive],
      ["admin-key", mask(s.adminKey.value), s.adminKey],
    ] as const;
    if (r.json) {
      printJson(r, {
        path: s.path,
        exists: existsSync(s.path),
        settings: Object.fromEntries(rows.map(([k, v, o]) => [k, { value: v, origin: o.origin }])),
      });
      return EXIT.ok;
    }
    r.out(`config file: ${s.path}${existsSync(s.path) ? "" : " (not created yet)"}`);
    r.out(
      table(
        rows.map(([k, v, o]) => [
          k,
          v,
          o.origin === "unset"
            ? ""
            : `(${o.origin === "config" ? "config file" : o.origin === "flag" ? o.from : o.origin === "env" ? o.from : "default"})`,
        ]),
      ),
    );
    return EXIT.ok;
  },
};

// ------------------------------------------------------------------ archives and keys

const archivesCreate: Command = {
  name: "archives create",
  args: "<id> [--name <name>] [--description <text>] [--save]",
  summary: "Create an archive (admin key). Prints its read+write key once.",
  options: {
    name: { type: "string", arg: "<name>", description: "display name (default: the id)" },
    description: { type: "string", arg: "<text>", description: "description" },
    save: { type: "boolean", description: "store the archive and its key in the config file" },
  },
  positionals: [1, 1],
  async run(r) {
    const id = r.positionals[0] as string;
    const res = await r.admin().createArchive({ id, name: r.str("name") ?? id, description: r.str("description") });
    if (r.values.save) {
      const cfg = setConfigValue(setConfigValue(loadConfig(r.settings.path), "archive", id), "key", res.key.secret);
      saveConfig(r.settings.path, cfg);
    }
    if (r.json) {
      printJson(r, res);
      return EXIT.ok;
    }
    r.out(`archive ${res.archive.id} created ("${res.archive.name}")`);
    r.out(`key ${res.key.id} (${res.key.scopes.join("+")}): ${res.key.secret}`);
    r.out(
      r.values.save
        ? `saved as the default archive and key in ${r.settings.path}`
        : "the secret is shown only once: keep it (`paperguru config set key <secret>`), or create with --save",
    );
    return EXIT.ok;
  },
};

const archivesList: Command = {
  name: "archives list",
  args: "",
  summary: "List archives (admin key).",
  positionals: [0, 0],
  async run(r) {
    const res = await r.admin().listArchives();
    if (r.json) printJson(r, res);
    else if (!res.archives.length) r.out("no archives");
    else r.out(table([["id", "name", "created"], ...res.archives.map((a) => [a.id, a.name, a.created_at])]));
    return EXIT.ok;
  },
};

const archivesGet: Command = {
  name: "archives get",
  args: "[<id>]",
  summary: "An archive's metadata and statistics (archive key; default: the configured archive).",
  positionals: [0, 1],
  async run(r) {
    const id = r.positionals[0] ?? r.archive();
    const res = await r.client().archive(id);
    if (r.json) {
      printJson(r, res);
      return EXIT.ok;
    }
    const cap = res.stats.capital;
    r.out(`archive ${id}${res.archive ? ` ("${res.archive.name}", created ${res.archive.created_at})` : ""}`);
    r.out(
      `  storage: ${res.stats.storage.chunks} chunks, ${res.stats.storage.versions} versions, ${res.stats.storage.edges} edges, ${res.stats.storage.entities} entities`,
    );
    r.out(
      `  capital chunk: ${cap.heads} heads, ${cap.bytes.total} bytes (${cap.bytes_per_head.toFixed(0)} bytes/head)`,
    );
    return EXIT.ok;
  },
};

/** One line of a re-embed's state: the archive's space, and the job's progress. */
function reembedLine(s: ReembedStatus): string {
  const space = (x: { model: string; dims: number } | null) => (x ? `${x.model} (${x.dims} dims)` : "none");
  const e = s.embedding;
  const head = `embedding: ${e.status}; archive ${space(e.archive)}, embedder ${space(e.embedder)}`;
  const j = s.job;
  if (!j) return head;
  const errors = j.errors.length ? `, ${j.errors.length} errors (last: ${j.errors[j.errors.length - 1]?.message})` : "";
  return `${head}\n  re-embed ${j.id} ${j.status}: ${j.done}/${j.total} heads in ${j.pages} pages${j.removed ? `, ${j.removed} removed` : ""}${errors}`;
}

const archivesReembed: Command = {
  name: "archives reembed",
  args: "[<id>] [--force] [--wait] [--status]",
  summary:
    "Re-embed every head with the server's embedder (write key): a queued job; queries skip semantic seeds until it is done (docs/models.md).",
  options: {
    force: { type: "boolean", description: "also when the archive is already in the embedder's space" },
    wait: { type: "boolean", description: "report progress until the job ends" },
    status: { type: "boolean", description: "only show the archive's space and the latest job" },
  },
  positionals: [0, 1],
  async run(r) {
    const id = r.positionals[0] ?? r.archive();
    const client = r.client();
    let state: ReembedStatus = r.values.status
      ? await client.reembedStatus(id)
      : await client.reembed(id, { force: r.values.force === true });
    if (!r.values.status && !r.json) {
      const started = (state as ReembedStarted).started;
      r.out(started ? `re-embed started for ${id}` : `nothing started for ${id}`);
    }
    while (r.values.wait && state.job?.status === "running") {
      if (!r.json) r.out(reembedLine(state));
      await new Promise((resolve) => setTimeout(resolve, 1000));
      state = await client.reembedStatus(id);
    }
    if (r.json) printJson(r, state);
    else r.out(reembedLine(state));
    return state.job?.status === "failed" && r.values.wait ? EXIT.failed : EXIT.ok;
  },
};

const keysCreate: Command = {
  name: "keys create",
  args: "[--scopes read,write] [--label <text>]",
  summary: "Issue a key for the archive (admin key). The secret is shown once.",
  options: {
    scopes: { type: "string", arg: "<list>", description: "read, write or read,write (default)" },
    label: { type: "string", arg: "<text>", description: "a label to recognise the key by" },
  },
  positionals: [0, 0],
  async run(r) {
    const scopes = (r.str("scopes") ?? "read,write").split(",").map((s) => s.trim());
    for (const s of scopes)
      if (s !== "read" && s !== "write")
        throw new UsageError(`unknown scope ${s}; use read and/or write`, "keys create");
    const res = await r
      .admin()
      .createKey(r.archive(), { scopes: scopes as Array<"read" | "write">, label: r.str("label") });
    if (r.json) printJson(r, res);
    else {
      r.out(`key ${res.id} (${res.scopes.join("+")}${res.label ? `, "${res.label}"` : ""}): ${res.secret}`);
      r.out("the secret is shown only once");
    }
    return EXIT.ok;
  },
};

const keysList: Command = {
  name: "keys list",
  args: "",
  summary: "List the archive's keys (admin key; secrets are never returned).",
  positionals: [0, 0],
  async run(r) {
    const res = await r.admin().listKeys(r.archive());
    if (r.json) printJson(r, res);
    else
      r.out(
        table([
          ["id", "scopes", "label", "created", "revoked"],
          ...res.keys.map((k) => [k.id, k.scopes.join("+"), k.label || "-", k.created_at, k.revoked_at ?? "-"]),
        ]),
      );
    return EXIT.ok;
  },
};

const keysRevoke: Command = {
  name: "keys revoke",
  args: "<key-id>",
  summary: "Revoke a key (admin key).",
  positionals: [1, 1],
  async run(r) {
    const res = await r.admin().revokeKey(r.archive(), r.positionals[0] as string);
    if (r.json) printJson(r, res);
    else r.out(`revoked ${res.revoked}`);
    return EXIT.ok;
  },
};

// ------------------------------------------------------------------ import

const importCmd: Command = {
  name: "import",
  args: "<file|folder>... [--format <f>] [--state <file>] [--restart] [--paper <id>]",
  summary: "Import files and folders (BibTeX, Markdown papers, full-text JSON/JSONL, xKG, the feed JSON, PDFs, .bbl).",
  details: [
    "Formats come from the extension (.bib, .md, .pdf, .bbl) and, for .json/.jsonl, from the content.",
    "A .bbl is the reference list of a paper in the archive: --paper names it (its chunk id); without it .bbl files are skipped.",
    "Large files go in pieces (JSONL 10 records, BibTeX 500 entries). A progress bar with records/s shows",
    "on a terminal, one line per piece otherwise. The state file keeps the sha256 of every piece the server",
    "acknowledged; running the same command again skips those (resume). Ctrl-C finishes the piece in flight,",
    "saves the state and exits 130. Exit 1 when a piece or a record failed.",
  ].join("\n"),
  options: {
    format: { type: "string", short: "f", arg: "<f>", description: `force a format: ${FORMATS.join("|")}` },
    paper: {
      type: "string",
      arg: "<id>",
      description: "format bbl: the chunk id of the paper citing the .bbl's entries",
    },
    state: { type: "string", arg: "<file>", description: `state file (default ./${DEFAULT_STATE_FILE})` },
    restart: { type: "boolean", description: "ignore the state file: send every piece again" },
    "stop-after": { type: "string", arg: "<n>", description: "stop (as Ctrl-C would) after n pieces were sent" },
    "valid-from": {
      type: "string",
      arg: "<time>",
      description: "event time of every record (ISO), replacing the files' own dates",
    },
  },
  positionals: [1, Number.POSITIVE_INFINITY],
  async run(r) {
    const format = r.str("format");
    if (format && !(FORMATS as readonly string[]).includes(format))
      throw new UsageError(`unknown --format ${format}; use one of ${FORMATS.join(", ")}`, "import");
    const paper = r.str("paper");
    if (paper !== undefined && format !== undefined && format !== "bbl")
      throw new UsageError(`--paper applies to .bbl files (format bbl), not --format ${format}`, "import");
    const archive = r.archive();
    r.client(); // fail early without a key
    const stopAfter = r.int("stop-after", 1, 1_000_000_000);
    // With --json the summary is the only thing on stdout; progress goes to stderr.
    const progress = r.json ? r.io.stderr : r.io.stdout;
    const summary = await runImport(r.positionals, {
      client: (signal) => r.client(signal),
      url: r.settings.url.value as string,
      archive,
      format: format as Format | undefined,
      statePath: resolve(r.io.cwd, r.str("state") ?? DEFAULT_STATE_FILE),
      restart: r.values.restart === true,
      stopAfter,
      validFrom: r.str("valid-from"),
      paper,
      progress,
      log: (s) => progress.write(`${s}\n`),
      onInterrupt: r.io.onInterrupt,
      cwd: r.io.cwd,
    });
    if (r.json) printJson(r, summary);
    else r.out(renderSummary(summary, r.io.cwd));
    return summary.exitCode;
  },
};

// ------------------------------------------------------------------ queries

const asOfOption = {
  "as-of": { type: "string", arg: "<time>", description: "ISO date or date-time (default: now)" },
} as const;

const QUERY_DETAILS = [
  "Filters apply before the top-M cut: --kinds, --scope/--scope-all (boundary tags), --within, --cited-by, --exclude,",
  "--grounded, --min-similarity. Ranking reorders the candidate pool: --mode, --weights, --mmr [λ], --sort, --view.",
  "Bad values are usage errors (exit 2) naming the flag and the allowed values.",
].join("\n");

const routeCmd: Command = {
  name: "route",
  args: '"<query>" [--as-of <time>] [--limit <n>] [filters] [ranking] [--trace]',
  summary: "Head-only routing: the chunks a query reaches, with per-expert scores.",
  details: QUERY_DETAILS,
  options: {
    ...asOfOption,
    limit: { type: "string", arg: "<n>", description: "candidates (1-256)" },
    session: { type: "string", arg: "<id>", description: "the caller's session (its accesses seed recency)" },
    ...FILTER_OPTIONS,
    ...RANKING_OPTIONS,
    trace: { type: "boolean", description: "ask for the trace (seeds, diffusion, router steps, timings)" },
  },
  positionals: [1, 1],
  rewrite: rewriteMmr,
  async run(r) {
    const query = r.positionals[0] as string;
    const limit = r.int("limit", 1, 256);
    const body: RouteBody & { include_trace?: boolean } = {
      query,
      as_of: r.str("as-of"),
      limit,
      session_id: r.str("session"),
      filter: filterFromFlags(r),
      ranking: rankingFromFlags(r),
      ...(r.values.trace === true ? { include_trace: true } : {}),
    };
    const res = await r.client().route(r.archive(), body);
    if (r.json) printJson(r, res);
    else {
      r.io.stdout.write(renderRoute(query, res, limit ?? 10));
      if (r.values.trace === true && res.trace) r.out(renderTrace(res.trace));
    }
    return EXIT.ok;
  },
};

const contextCmd: Command = {
  name: "context",
  args: '"<query>" [--budget 2000] [--as-of <time>] [--max-cards <n>] [--session <id>] [filters] [ranking] [--follow <t>] [code]',
  summary: "Evidence cards for a query within a token budget (title, artifact@version, claim, sketch, anchors).",
  details: `${QUERY_DETAILS}\nCode (xKG): --max-code-bytes <n> caps the code cards' code, --code-chunks [size[:overlap]] carries its best windows.\n\`paperguru context "..." --json | paperguru verify -\` re-checks every anchor.`,
  options: {
    ...asOfOption,
    budget: { type: "string", arg: "<tokens>", description: "token budget (default 2000)" },
    "max-cards": { type: "string", arg: "<n>", description: "at most n cards (1-64)" },
    "max-card-tokens": { type: "string", arg: "<n>", description: "at most n tokens per card (50-4000)" },
    tokenizer: { type: "string", arg: "<enc>", description: "count tokens in cl100k_base (default) or o200k_base" },
    session: { type: "string", arg: "<id>", description: "include this session's short-term events" },
    "min-relevance": {
      type: "string",
      arg: "<0-1>",
      description: "evidence floor: no cards at all when nothing reaches it (0 turns it off)",
    },
    "min-card-relevance": { type: "string", arg: "<0-1>", description: "no card below this relevance" },
    ...FILTER_OPTIONS,
    ...RANKING_OPTIONS,
    ...FOLLOW_OPTION,
    ...CODE_OPTIONS,
    trace: { type: "boolean", description: "ask for the trace (mentions, seeds, timings); off by default" },
  },
  positionals: [1, 1],
  rewrite: (argv) => rewriteCodeChunks(rewriteMmr(argv)),
  async run(r) {
    const query = r.positionals[0] as string;
    const body: ContextBody & { include_trace?: boolean } = {
      ...codeFromFlags(r),
      query,
      as_of: r.str("as-of"),
      budget_tokens: r.int("budget", 50, 200_000) ?? 2000,
      max_cards: r.int("max-cards", 1, 64),
      max_card_tokens: r.int("max-card-tokens", 50, 4000),
      tokenizer: tokenizerFlag(r),
      session_id: r.str("session"),
      filter: filterFromFlags(r),
      ranking: rankingFromFlags(r),
      follow: followFromFlags(r),
      min_relevance: unitFlag(r, "min-relevance"),
      min_card_relevance: unitFlag(r, "min-card-relevance"),
      ...(r.values.trace === true ? { include_trace: true } : {}),
    };
    const res = await r.client().context(r.archive(), body);
    if (r.json) printJson(r, res);
    else {
      r.io.stdout.write(renderContext(query, res));
      if (r.values.trace === true && res.trace) r.out(renderTrace(res.trace));
    }
    return EXIT.ok;
  },
};

/** A flag holding a number from 0 to 1. */
function unitFlag(r: Run, name: string): number | undefined {
  const v = r.str(name);
  if (v === undefined) return undefined;
  const n = Number(v);
  if (v.trim() === "" || !Number.isFinite(n) || n < 0 || n > 1)
    throw new UsageError(`--${name} must be a number from 0 to 1, got ${v}`);
  return n;
}

function tokenizerFlag(r: Run): ContextBody["tokenizer"] {
  const t = r.str("tokenizer");
  if (t === undefined) return undefined;
  if (t !== "cl100k_base" && t !== "o200k_base")
    throw new UsageError(`--tokenizer must be cl100k_base or o200k_base, got ${t}`);
  return t;
}

const expandCmd: Command = {
  name: "expand",
  args: '<id[@version]>... [--query "<q>"] [--budget 4000] [--as-of <time>] [--follow <t>]',
  summary: "Cards for chosen chunks (the versions valid at --as-of, or id@version), without routing.",
  options: {
    ...asOfOption,
    query: { type: "string", short: "q", arg: "<q>", description: "what the cards should focus on" },
    budget: { type: "string", arg: "<tokens>", description: "token budget (default 4000)" },
    "max-card-tokens": { type: "string", arg: "<n>", description: "at most n tokens per card (50-4000)" },
    tokenizer: { type: "string", arg: "<enc>", description: "cl100k_base (default) or o200k_base" },
    session: { type: "string", arg: "<id>", description: "count these reads in this session's recency" },
    ...FOLLOW_OPTION,
  },
  positionals: [1, 64],
  async run(r) {
    const chunks = r.positionals.map((p) => {
      const m = /^(.+)@v?(\d+)$/.exec(p);
      return m ? { id: m[1] as string, version: Number(m[2]) } : { id: p };
    });
    const res = await r.client().expand(r.archive(), {
      query: r.str("query") ?? "",
      chunks,
      as_of: r.str("as-of"),
      budget_tokens: r.int("budget", 50, 200_000) ?? 4000,
      max_card_tokens: r.int("max-card-tokens", 50, 4000),
      tokenizer: tokenizerFlag(r),
      session_id: r.str("session"),
      follow: followFromFlags(r),
    });
    if (r.json) printJson(r, res);
    else {
      r.out(`${res.cards.length} card${res.cards.length === 1 ? "" : "s"}, ${res.tokens} tokens`);
      for (const [i, c] of res.cards.entries()) r.out(`\n${renderCard(c, i)}`);
      if (res.skipped.length) r.out(`\nskipped: ${res.skipped.map((s) => `${s.chunk} (${s.reason})`).join(", ")}`);
    }
    return EXIT.ok;
  },
};

const verifyCmd: Command = {
  name: "verify",
  args: "<anchors.json|->",
  summary: "Re-check anchors: is each snippet exactly the text at [start, end) of that version?",
  details:
    "Input: a JSON list of anchors, {anchors: [...]}, or a context/expand response (`context --json`); - reads stdin.\nPrints ok or MISMATCH per anchor; exits 1 if any anchor fails.",
  positionals: [1, 1],
  async run(r) {
    const src = r.positionals[0] as string;
    let text: string;
    if (src === "-") text = await r.io.readStdin();
    else {
      const path = resolve(r.io.cwd, src);
      if (!existsSync(path)) throw new UsageError(`no such file: ${src}`, "verify");
      text = readFileSync(path, "utf8");
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new UsageError(`${src === "-" ? "stdin" : src} is not JSON`, "verify");
    }
    const found = extractAnchors(json);
    if (!found)
      throw new UsageError(
        "no anchors found: give a list of anchors, {anchors: [...]} or a context --json output",
        "verify",
      );
    const anchors: Anchor[] = found.map(({ artifact_id, version, start, end, snippet }) => ({
      artifact_id,
      version,
      start,
      end,
      snippet,
    }));
    if (!anchors.length) {
      if (r.json) printJson(r, { all_verified: true, results: [] });
      else r.out("no anchors to verify");
      return EXIT.ok;
    }
    const client = r.client();
    const archive = r.archive();
    const results = [];
    for (let i = 0; i < anchors.length; i += 500)
      results.push(...(await client.verify(archive, { anchors: anchors.slice(i, i + 500) })).results);
    const ok = results.filter((x) => x.verified).length;
    if (r.json) printJson(r, { all_verified: ok === results.length, results });
    else {
      for (const x of results) r.out(renderVerify(x));
      r.out(`${ok}/${results.length} anchors verified`);
    }
    return ok === results.length ? EXIT.ok : EXIT.failed;
  },
};

// ------------------------------------------------------------------ export

const exportCmd: Command = {
  name: "export",
  args: '--format <f> [--out <file>] [--as-of <time>] [--within <chunk> | --collection <chunk>] [--query "<q>" [--budget <n>]]',
  summary: "Export the archive (as of a time), or with --query the cards of a context request.",
  details: `Archive formats: ${EXPORT_FORMATS.join(", ")} (json is a lossless dump that \`paperguru import\` re-imports).\nWith --query: ${CONTEXT_EXPORT_FORMATS.join(", ")}.`,
  options: {
    format: { type: "string", short: "f", arg: "<f>", description: EXPORT_FORMATS.join(", ") },
    out: { type: "string", short: "o", arg: "<file>", description: "write to a file (default: stdout)" },
    ...asOfOption,
    query: { type: "string", short: "q", arg: "<q>", description: "export the context for this query" },
    budget: { type: "string", arg: "<tokens>", description: "context budget with --query (default 2000)" },
    within: { type: "string", arg: "<chunk>", description: "only this chunk's part-of subtree (a paper's graph)" },
    collection: { type: "string", arg: "<chunk>", description: "only this collection's members" },
  },
  positionals: [0, 0],
  async run(r) {
    const format = r.str("format");
    if (!format) throw new UsageError("missing --format", "export");
    if (!(EXPORT_FORMATS as readonly string[]).includes(format))
      throw new UsageError(`unknown --format ${format}; use one of ${EXPORT_FORMATS.join(", ")}`, "export");
    const query = r.str("query");
    const budget = r.int("budget", 50, 200_000);
    if (budget !== undefined && !query) throw new UsageError("--budget needs --query", "export");
    if (query && !(CONTEXT_EXPORT_FORMATS as readonly string[]).includes(format))
      throw new UsageError(
        `--query exports take --format ${CONTEXT_EXPORT_FORMATS.join(", ")}, not ${format}`,
        "export",
      );
    const client = r.client();
    const archive = r.archive();
    const as_of = r.str("as-of");
    const text = query
      ? await client.exportContext(archive, {
          query,
          as_of,
          budget_tokens: budget ?? 2000,
          format: format as ContextExportFormat,
        })
      : await client.export(archive, {
          format: format as ExportFormat,
          as_of,
          within: r.str("within"),
          collection: r.str("collection"),
        });
    const f = format;
    const out = r.str("out");
    if (out) {
      writeFileSync(resolve(r.io.cwd, out), text);
      r.err(`wrote ${Buffer.byteLength(text)} bytes of ${f} to ${out}`);
    } else r.io.stdout.write(text.endsWith("\n") || !text ? text : `${text}\n`);
    return EXIT.ok;
  },
};

// ------------------------------------------------------------------ sources and the ingest log

const sourceLine = (s: Source) =>
  [
    s.id,
    s.kind,
    s.paused ? "paused" : `every ${s.interval_minutes} min`,
    s.status.last_status ?? "never run",
    s.status.last_run ?? "-",
    s.status.next_run ?? "-",
    s.location || s.query || "-",
  ] as string[];
const SOURCE_HEAD = ["id", "kind", "schedule", "last status", "last run", "next run", "location/query"];

const sourcesAdd: Command = {
  name: "sources add",
  args: `<${SOURCE_KINDS.join("|")}> [--location <loc>] [--query <q>] [--id <id>] [--interval <min>] [--paused]`,
  summary: "Register a source that the server re-ingests on a schedule.",
  details:
    "url: --location is the URL of a feed; github: --location owner/repo[/path][@ref];\narxiv/openalex/crossref: --query is the search (the location defaults to the public API).",
  options: {
    location: { type: "string", arg: "<loc>", description: "URL, owner/repo, or API base" },
    query: { type: "string", arg: "<q>", description: "search query or filter" },
    id: { type: "string", arg: "<id>", description: "source id (default: generated)" },
    interval: { type: "string", arg: "<min>", description: "minutes between runs (default 1440)" },
    paused: { type: "boolean", description: "create paused" },
  },
  positionals: [1, 1],
  async run(r) {
    const kind = r.positionals[0] as string;
    if (!(SOURCE_KINDS as readonly string[]).includes(kind))
      throw new UsageError(`unknown source kind ${kind}; use one of ${SOURCE_KINDS.join(", ")}`, "sources add");
    const res = await r.client().addSource(r.archive(), {
      kind: kind as SourceKind,
      id: r.str("id"),
      location: r.str("location"),
      query: r.str("query"),
      interval_minutes: r.int("interval", 5, 60 * 24 * 30),
      paused: r.values.paused === true ? true : undefined,
    });
    if (r.json) printJson(r, res);
    else r.out(`source ${res.id} added (${res.kind}, ${res.paused ? "paused" : `every ${res.interval_minutes} min`})`);
    return EXIT.ok;
  },
};

const sourcesList: Command = {
  name: "sources list",
  args: "",
  summary: "List sources with their status.",
  positionals: [0, 0],
  async run(r) {
    const res = await r.client().sources(r.archive());
    if (r.json) printJson(r, res);
    else if (!res.sources.length) r.out("no sources");
    else r.out(table([SOURCE_HEAD, ...res.sources.map(sourceLine)]));
    return EXIT.ok;
  },
};

const sourcesRun: Command = {
  name: "sources run",
  args: "<id>",
  summary: "Run a source now and print the outcome.",
  positionals: [1, 1],
  async run(r) {
    const res = await r.client().runSource(r.archive(), r.positionals[0] as string);
    if (r.json) printJson(r, res);
    else {
      const c = res.run.counts;
      r.out(
        `source ${res.source.id}: ${res.run.status}${c ? `; created ${c.created}, updated ${c.updated}, unchanged ${c.unchanged}, deprecated ${c.deprecated}, failed ${c.failed}` : ""}`,
      );
      if (res.run.error) r.out(`  error: ${res.run.error}`);
      const st = res.source.status;
      if (res.run.status === "error")
        r.out(
          `  next run: ${st.next_run ?? "paused"} (${st.consecutive_failures} consecutive failure${st.consecutive_failures === 1 ? "" : "s"}; the interval doubles from the second)`,
        );
    }
    return res.run.status === "error" ? EXIT.failed : EXIT.ok;
  },
};

const patchCommand = (name: "pause" | "resume"): Command => ({
  name: `sources ${name}`,
  args: "<id>",
  summary: name === "pause" ? "Pause a source." : "Resume a source (it runs at the next tick).",
  positionals: [1, 1],
  async run(r) {
    const res = await r.client().patchSource(r.archive(), r.positionals[0] as string, { paused: name === "pause" });
    if (r.json) printJson(r, res);
    else r.out(`source ${res.id} ${res.paused ? "paused" : `resumed (next run ${res.status.next_run ?? "-"})`}`);
    return EXIT.ok;
  },
});

const sourcesDelete: Command = {
  name: "sources delete",
  args: "<id>",
  summary: "Delete a source (what it ingested stays, with its history).",
  positionals: [1, 1],
  async run(r) {
    const res = await r.client().deleteSource(r.archive(), r.positionals[0] as string);
    if (r.json) printJson(r, res);
    else r.out(`deleted source ${res.deleted}`);
    return EXIT.ok;
  },
};

const logCmd: Command = {
  name: "log",
  args: "[--limit <n>] [--before <id>]",
  summary: "The ingest log: runs from webhooks, sources and imports, newest first.",
  options: {
    limit: { type: "string", arg: "<n>", description: "entries (1-500, default 100)" },
    before: { type: "string", arg: "<id>", description: "entries older than this id (paging)" },
  },
  positionals: [0, 0],
  async run(r) {
    const res = await r.client().ingestLog(r.archive(), {
      limit: r.int("limit", 1, 500),
      before: r.int("before", 0, Number.MAX_SAFE_INTEGER),
    });
    if (r.json) printJson(r, res);
    else if (!res.entries.length) r.out("the ingest log is empty");
    else
      r.out(
        table([
          ["id", "at", "origin", "status", "ref", "counts", "error"],
          ...res.entries.map((e) => [
            String(e.id),
            e.at,
            e.origin,
            e.status,
            e.ref,
            Object.entries(e.counts ?? {})
              .filter(([, v]) => v)
              .map(([k, v]) => `${k} ${v}`)
              .join(", ") || "-",
            e.error ?? "",
          ]),
        ]),
      );
    return EXIT.ok;
  },
};

export const COMMANDS: Command[] = [
  configSet,
  configUnset,
  configShow,
  archivesCreate,
  archivesList,
  archivesGet,
  archivesReembed,
  ...ADMIN_COMMANDS,
  keysCreate,
  keysList,
  keysRevoke,
  importCmd,
  routeCmd,
  contextCmd,
  expandCmd,
  verifyCmd,
  exportCmd,
  sourcesAdd,
  sourcesList,
  sourcesRun,
  patchCommand("pause"),
  patchCommand("resume"),
  sourcesDelete,
  logCmd,
  ...MEMORY_COMMANDS,
  ...SYSTEM_COMMANDS,
];
