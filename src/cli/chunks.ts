/** Commands on any chunk: `annotate` and `annotations` (typed key/value events), `access` and `diff`. */
import type { AnnotateBody } from "../client";
import { type Command, valueOption } from "./command";
import { asOf, printedJson, printJson, short, writeText } from "./common";
import { table, UsageError } from "./io";

const annotateCmd: Command = {
  name: "annotate",
  args: "<chunk> <key> [<value> | --add <n>] [--version <n>] [--reason <text>] [--at <time>] [--event-id <id>]",
  summary:
    "Append a status (a value: committed, proposed, ...) or a counter (--add) event to a chunk; readable as of any time.",
  details: "A value of true, false, null or a number is stored as that JSON value; anything else as a string.",
  options: {
    add: valueOption("<n>", "add n to the key's value (a counter)"),
    version: valueOption("<n>", "the version it is about (default: the chunk)"),
    reason: valueOption("<text>", "why (kept with the event)"),
    at: valueOption("<time>", "when it holds from (default now)"),
    "event-id": valueOption("<id>", "your id for the event: a retry counts once"),
  },
  async run(r) {
    const [chunk, key, raw] = [r.arg(0), r.arg(1), r.positionals[2]];
    const add = r.num("add", -1e15, 1e15);
    if ((raw === undefined) === (add === undefined)) throw new UsageError("give a value or --add <n>", "annotate");
    const value =
      raw === undefined
        ? undefined
        : /^(true|false|null|-?\d+(\.\d+)?)$/.test(raw)
          ? (JSON.parse(raw) as string | number | boolean | null)
          : raw;
    const body: AnnotateBody = {
      key,
      ...(raw !== undefined ? { value } : { add }),
      version: r.int("version", 1, 1_000_000),
      reason: r.str("reason"),
      at: r.str("at"),
      event_id: r.str("event-id"),
    };
    const { answer: res, replayed } = await r.client().annotateOnce(r.archive(), chunk, body);
    if (r.json) printJson(r, res);
    else
      r.out(
        `${chunk} ${key} = ${JSON.stringify(res.current.value)} (${res.current.events} events)${replayed || res.duplicate ? " (already recorded)" : ""}`,
      );
  },
};

const annotationsCmd: Command = {
  name: "annotations",
  args: "<chunk> [--key <k>] [--as-of <time>]",
  summary: "A chunk's annotation values as of a time, with their events.",
  options: { key: valueOption("<k>", "only this key"), ...asOf },
  async run(r) {
    const chunk = r.arg(0);
    const res = await r.client().annotations(r.archive(), chunk, { key: r.str("key"), as_of: r.str("as-of") });
    if (printedJson(r, res)) return;
    const values = Object.entries(res.values);
    if (!values.length) r.out(`${chunk}: no annotations`);
    else
      r.out(
        table([
          ["key", "value", "since", "by", "events"],
          ...values.map(([k, v]) => [k, short(JSON.stringify(v.value), 60), v.at, v.actor, String(v.events)]),
        ]),
      );
  },
};

const accessCmd: Command = {
  name: "access",
  args: "[--by session|chunk] [--session <id>] [--chunk <id>] [--since <time>] [--until <time>] [--limit 50]",
  summary: "How often chunks were routed to, expanded and verified, per session (default) or per chunk; most first.",
  options: {
    by: valueOption("<session|chunk>", "one row per session (default) or per chunk"),
    session: valueOption("<id>", "only this session's accesses"),
    chunk: valueOption("<id>", "only accesses of this chunk"),
    since: valueOption("<time>", "only accesses at or after this instant"),
    until: valueOption("<time>", "only accesses at or before this instant"),
    limit: valueOption("<n>", "rows per page (1-500, default 50)"),
    cursor: valueOption("<c>", "next_cursor of the previous page"),
  },
  async run(r) {
    const by = r.str("by");
    if (by !== undefined && by !== "session" && by !== "chunk")
      throw new UsageError(`--by must be session or chunk, got "${by}"`);
    const res = await r.client().accessCounts(r.archive(), {
      by,
      session_id: r.str("session"),
      chunk: r.str("chunk"),
      since: r.str("since"),
      until: r.str("until"),
      limit: r.int("limit", 1, 500),
      cursor: r.str("cursor"),
    });
    if (printedJson(r, res)) return;
    const t = res.totals;
    r.out(
      `${t.total} accesses (routing ${t.routing}, expansion ${t.expansion}, verification ${t.verification}) in ${res.groups} ${by ?? "session"} row(s)`,
    );
    if (res.rows.length)
      r.out(
        table([
          [by ?? "session", "routing", "expansion", "verification", "total", "last"],
          ...res.rows.map((x) => [
            x.key ?? "(no session)",
            String(x.routing),
            String(x.expansion),
            String(x.verification),
            String(x.total),
            x.last,
          ]),
        ]),
      );
    if (res.next_cursor) r.err(`more: --cursor ${res.next_cursor}`);
  },
};

const diffCmd: Command = {
  name: "diff",
  args: "<chunk> [--from <n>] [--to <n>] [--context 3]",
  summary: "A line diff between two versions of a chunk (default: the latest and the one before), unified.",
  options: {
    from: valueOption("<n>", "the older version (default: the one before --to)"),
    to: valueOption("<n>", "the newer version (default: the latest)"),
    context: valueOption("<n>", "lines of context (0-100, default 3)"),
  },
  async run(r) {
    const res = await r.client().diff(r.archive(), r.arg(0), {
      from: r.int("from", 1, 1_000_000),
      to: r.int("to", 1, 1_000_000),
      context: r.int("context", 0, 100),
    });
    if (r.json) printJson(r, res);
    else {
      writeText(r, res.unified);
      r.err(
        `${res.chunk}: v${res.from.version} -> v${res.to.version}, +${res.inserted_lines} -${res.deleted_lines} lines`,
      );
    }
  },
};

export const CHUNK_COMMANDS: Command[] = [accessCmd, annotateCmd, annotationsCmd, diffCmd];
