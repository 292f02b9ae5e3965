/** Sources the server re-ingests on a schedule (`sources add|list|run|pause|resume|delete`) and the ingest `log`. */
import type { Source, SourceKind } from "../client";
import { SOURCE_KINDS } from "../core/sources/types";
import { type Command, flagOption, valueOption } from "./command";
import { entriesLimitOption, flagOn, listCommand, printJson } from "./common";
import { EXIT, UsageError } from "./io";

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

const sourcesAdd: Command = {
  name: "sources add",
  args: `<${SOURCE_KINDS.join("|")}> [--location <loc>] [--query <q>] [--id <id>] [--interval <min>] [--paused]`,
  summary: "Register a source that the server re-ingests on a schedule.",
  details:
    "url: --location is the URL of a feed; github: --location owner/repo[/path][@ref];\narxiv/openalex/crossref: --query is the search (the location defaults to the public API).",
  options: {
    location: valueOption("<loc>", "URL, owner/repo, or API base"),
    query: valueOption("<q>", "search query or filter"),
    id: valueOption("<id>", "source id (default: generated)"),
    interval: valueOption("<min>", "minutes between runs (default 1440)"),
    paused: flagOption("create paused"),
  },
  async run(r) {
    const kind = r.arg(0);
    if (!(SOURCE_KINDS as readonly string[]).includes(kind))
      throw new UsageError(`unknown source kind ${kind}; use one of ${SOURCE_KINDS.join(", ")}`, "sources add");
    const res = await r.client().addSource(r.archive(), {
      kind: kind as SourceKind,
      id: r.str("id"),
      location: r.str("location"),
      query: r.str("query"),
      interval_minutes: r.int("interval", 5, 60 * 24 * 30),
      paused: flagOn(r, "paused"),
    });
    if (r.json) printJson(r, res);
    else r.out(`source ${res.id} added (${res.kind}, ${res.paused ? "paused" : `every ${res.interval_minutes} min`})`);
  },
};

const sourcesList = listCommand({
  name: "sources list",
  args: "",
  summary: "List sources with their status.",
  fetch: (r) => r.client().sources(r.archive()),
  head: ["id", "kind", "schedule", "last status", "last run", "next run", "location/query"],
  rows: (res) => res.sources.map(sourceLine),
  empty: "no sources",
});

const sourcesRun: Command = {
  name: "sources run",
  args: "<id>",
  summary: "Run a source now and print the outcome.",
  async run(r) {
    const res = await r.client().runSource(r.archive(), r.arg(0));
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
  async run(r) {
    const res = await r.client().patchSource(r.archive(), r.arg(0), { paused: name === "pause" });
    if (r.json) printJson(r, res);
    else r.out(`source ${res.id} ${res.paused ? "paused" : `resumed (next run ${res.status.next_run ?? "-"})`}`);
  },
});

const sourcesDelete: Command = {
  name: "sources delete",
  args: "<id>",
  summary: "Delete a source (what it ingested stays, with its history).",
  async run(r) {
    const res = await r.client().deleteSource(r.archive(), r.arg(0));
    if (r.json) printJson(r, res);
    else r.out(`deleted source ${res.deleted}`);
  },
};

const logCmd = listCommand({
  name: "log",
  args: "[--limit <n>] [--before <id>]",
  summary: "The ingest log: runs from webhooks, sources and imports, newest first.",
  options: {
    limit: entriesLimitOption,
    before: valueOption("<id>", "entries older than this id (paging)"),
  },
  fetch: (r) =>
    r.client().ingestLog(r.archive(), {
      limit: r.int("limit", 1, 500),
      before: r.int("before", 0, Number.MAX_SAFE_INTEGER),
    }),
  head: ["id", "at", "origin", "status", "ref", "counts", "error"],
  rows: (res) =>
    res.entries.map((e) => [
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
  empty: "the ingest log is empty",
});
export const SOURCE_COMMANDS: Command[] = [
  sourcesAdd,
  sourcesList,
  sourcesRun,
  patchCommand("pause"),
  patchCommand("resume"),
  sourcesDelete,
  logCmd,
];
