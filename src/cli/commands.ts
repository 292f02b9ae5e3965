/**
 * Every `paperguru` command in help order (the dispatcher and help are in main.ts): config, archives,
 * keys and import here; queries.ts, sources.ts, memory.ts and the systems (systems.ts) beside it.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { ReembedStarted, ReembedStatus } from "../client";
import { type Command, flagOption, type Run, valueOption } from "./command";
import { listCommand, printedJson, printJson } from "./common";
import { CONFIG_KEYS, type ConfigKey, loadConfig, saveConfig, setConfigValue } from "./config";
import { DEFAULT_STATE_FILE, FORMATS, type Format, renderSummary, runImport } from "./import";
import { EXIT, mask, table, UsageError } from "./io";
import { ADMIN_COMMANDS, MEMORY_COMMANDS } from "./memory";
import { QUERY_COMMANDS } from "./queries";
import { SOURCE_COMMANDS } from "./sources";
import { SYSTEM_COMMANDS } from "./systems";

// ------------------------------------------------------------------ config

/** The setting named by the first argument (a usage error of `command` when it is not one). */
function configKey(r: Run, command: string): ConfigKey {
  const name = r.arg(0);
  if (!(CONFIG_KEYS as readonly string[]).includes(name))
    throw new UsageError(`unknown setting ${name}; use one of ${CONFIG_KEYS.join(", ")}`, command);
  return name as ConfigKey;
}

const configSet: Command = {
  name: "config set",
  args: `<${CONFIG_KEYS.join("|")}> <value>`,
  summary: "Store a setting in the config file (created with mode 0600).",
  async run(r) {
    const [name, value] = [configKey(r, "config set"), r.arg(1)];
    saveConfig(r.settings.path, setConfigValue(loadConfig(r.settings.path), name, value));
    r.out(`${name} = ${name.endsWith("key") ? mask(value) : value} (saved to ${r.settings.path})`);
  },
};

const configUnset: Command = {
  name: "config unset",
  args: `<${CONFIG_KEYS.join("|")}>`,
  summary: "Remove a setting from the config file.",
  async run(r) {
    const name = configKey(r, "config unset");
    saveConfig(r.settings.path, setConfigValue(loadConfig(r.settings.path), name, undefined));
    r.out(`${name} removed from ${r.settings.path}`);
  },
};

const configShow: Command = {
  name: "config show",
  args: "",
  summary: "The settings in effect and where each comes from (keys are masked).",
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
      return;
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
  },
};

// ------------------------------------------------------------------ archives and keys

const archivesCreate: Command = {
  name: "archives create",
  args: "<id> [--name <name>] [--description <text>] [--save]",
  summary: "Create an archive (admin key). Prints its read+write key once.",
  options: {
    name: valueOption("<name>", "display name (default: the id)"),
    description: valueOption("<text>", "description"),
    save: flagOption("store the archive and its key in the config file"),
  },
  async run(r) {
    const id = r.arg(0);
    const res = await r.admin().createArchive({ id, name: r.str("name") ?? id, description: r.str("description") });
    if (r.values.save) {
      const cfg = setConfigValue(setConfigValue(loadConfig(r.settings.path), "archive", id), "key", res.key.secret);
      saveConfig(r.settings.path, cfg);
    }
    if (printedJson(r, res)) return;
    r.out(`archive ${res.archive.id} created ("${res.archive.name}")`);
    r.out(`key ${res.key.id} (${res.key.scopes.join("+")}): ${res.key.secret}`);
    r.out(
      r.values.save
        ? `saved as the default archive and key in ${r.settings.path}`
        : "the secret is shown only once: keep it (`paperguru config set key <secret>`), or create with --save",
    );
  },
};

const archivesList = listCommand({
  name: "archives list",
  args: "",
  summary: "List archives (admin key).",
  fetch: (r) => r.admin().listArchives(),
  head: ["id", "name", "created"],
  rows: (res) => res.archives.map((a) => [a.id, a.name, a.created_at]),
  empty: "no archives",
});

const archivesGet: Command = {
  name: "archives get",
  args: "[<id>]",
  summary: "An archive's metadata and statistics (archive key; default: the configured archive).",
  async run(r) {
    const id = r.positionals[0] ?? r.archive();
    const res = await r.client().archive(id);
    if (printedJson(r, res)) return;
    const cap = res.stats.capital;
    r.out(`archive ${id}${res.archive ? ` ("${res.archive.name}", created ${res.archive.created_at})` : ""}`);
    r.out(
      `  storage: ${res.stats.storage.chunks} chunks, ${res.stats.storage.versions} versions, ${res.stats.storage.edges} edges, ${res.stats.storage.entities} entities`,
    );
    r.out(
      `  capital chunk: ${cap.heads} heads, ${cap.bytes.total} bytes (${cap.bytes_per_head.toFixed(0)} bytes/head)`,
    );
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
    force: flagOption("also when the archive is already in the embedder's space"),
    wait: flagOption("report progress until the job ends"),
    status: flagOption("only show the archive's space and the latest job"),
  },
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
    scopes: valueOption("<list>", "read, write or read,write (default)"),
    label: valueOption("<text>", "a label to recognise the key by"),
  },
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
  },
};

const keysList: Command = {
  name: "keys list",
  args: "",
  summary: "List the archive's keys (admin key; secrets are never returned).",
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
  },
};

const keysRevoke: Command = {
  name: "keys revoke",
  args: "<key-id>",
  summary: "Revoke a key (admin key).",
  async run(r) {
    const res = await r.admin().revokeKey(r.archive(), r.arg(0));
    if (r.json) printJson(r, res);
    else r.out(`revoked ${res.revoked}`);
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
    format: valueOption("<f>", `force a format: ${FORMATS.join("|")}`, { short: "f" }),
    paper: valueOption("<id>", "format bbl: the chunk id of the paper citing the .bbl's entries"),
    state: valueOption("<file>", `state file (default ./${DEFAULT_STATE_FILE})`),
    restart: flagOption("ignore the state file: send every piece again"),
    "stop-after": valueOption("<n>", "stop (as Ctrl-C would) after n pieces were sent"),
    "valid-from": valueOption("<time>", "event time of every record (ISO), replacing the files' own dates"),
  },
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
  ...QUERY_COMMANDS,
  ...SOURCE_COMMANDS,
  ...MEMORY_COMMANDS,
  ...SYSTEM_COMMANDS,
];
