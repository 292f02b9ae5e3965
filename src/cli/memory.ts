/**
 * CLI commands for what a person does by hand between imports and queries: add a note, revise,
 * deprecate, delete; look around (chunks, show, history, entities, resolve); entity aliases, renames
 * and merges; session events; then the webhook and subscription commands (webhooks.ts).
 */
import type { Artifact, ChunkDetail, EntityDetail } from "../client";
import { sha256Hex } from "../core/ingest";
import { CHUNK_KINDS, DECLARABLE_EDGE_TYPES } from "../core/types";
import { type Command, flagOption, type Run, valueOption } from "./command";
import {
  asOf,
  entriesLimitOption,
  listCommand,
  pageLimit,
  pageLimitOption,
  printedJson,
  printJson,
  printNextCursor,
  readText,
} from "./common";
import { didYouMean, EXIT, table, UsageError } from "./io";
import { WEBHOOK_COMMANDS } from "./webhooks";

const short = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** Text from --content, --file or stdin (-). */
async function textArg(r: Run): Promise<string | undefined> {
  const content = r.str("content");
  const file = r.str("file");
  if (content !== undefined && file !== undefined) throw new UsageError("give --content or --file, not both");
  return file === undefined ? content : readText(r, file);
}

/** A chunk id (the first argument) or --entity <id>, exactly one of them (a usage error of `command` otherwise). */
function chunkOrEntity(r: Run, command: string): { chunk?: string; entity?: string } {
  const entity = r.str("entity");
  const chunk = r.positionals[0];
  if (!entity === !chunk) throw new UsageError("give a chunk id or --entity <id>", command);
  return { chunk, entity };
}

/** What an ingest or a revision stored: the server's JSON with --json, else a line per chunk. */
function printStored(r: Run, res: { results: Array<{ id: string; status: string; version: number }> }): void {
  if (r.json) printJson(r, res);
  else for (const x of res.results) r.out(`${x.id}: ${x.status} (version ${x.version})`);
}

function requireYes(r: Run, what: string): void {
  if (r.values.yes !== true) throw new UsageError(`${what} cannot be undone: add --yes to confirm`);
}

// ------------------------------------------------------------------ write

const noteCmd: Command = {
  name: "note",
  args: '"<text>" [--id <id>] [--kind note] [--title <title>] [--tag <boundary>]... [--edge <type>=<id>]... [--valid-from <time>]',
  summary:
    "Remember a note (or a decision, design, technique, code unit, ...). Without --id the id is <kind>:<first 12 hex of sha256(text)>, so a retry stores it once.",
  options: {
    id: valueOption("<id>", "chunk id (re-using one adds a version)"),
    kind: valueOption("<kind>", `the chunk's kind (default note): ${CHUNK_KINDS.join(", ")}`),
    title: valueOption("<title>", "title (default: the first 80 characters)"),
    tag: valueOption("<a,b>", "boundary tags, comma-separated or repeated (e.g. split:dev)", { multiple: true }),
    edge: valueOption(
      "<type>=<id>",
      `a typed edge to another chunk, repeatable (e.g. implements=decision:cache, part-of=review:root); types: ${DECLARABLE_EDGE_TYPES.join(", ")}`,
      { multiple: true },
    ),
    "valid-from": valueOption("<time>", "event time (default: now)"),
  },
  async run(r) {
    const text = r.arg(0);
    const kindArg = r.str("kind") ?? "note";
    if (!(CHUNK_KINDS as readonly string[]).includes(kindArg))
      throw new UsageError(
        `--kind: unknown kind "${kindArg}"${didYouMean(kindArg, CHUNK_KINDS, (s) => `"${s}"`)}; use one of ${CHUNK_KINDS.join(", ")}`,
        "note",
      );
    const kind = kindArg as (typeof CHUNK_KINDS)[number];
    const edges = (r.list("edge") ?? []).map((spec) => {
      const m = /^([a-z-]+)=(.+)$/.exec(spec);
      const type = m?.[1] ?? "";
      if (!m || !(DECLARABLE_EDGE_TYPES as readonly string[]).includes(type))
        throw new UsageError(
          `--edge ${spec}: give <type>=<chunk id> with a type of ${DECLARABLE_EDGE_TYPES.join(", ")}${didYouMean(type, DECLARABLE_EDGE_TYPES, (s) => `"${s}"`)}`,
          "note",
        );
      return { type: type as (typeof DECLARABLE_EDGE_TYPES)[number], target: m[2] as string };
    });
    const id = r.str("id") ?? `${kind}:${(await sha256Hex(text)).slice(0, 12)}`;
    const firstLine = text.split("\n")[0] ?? text;
    const artifact: Artifact = {
      id,
      kind,
      title: r.str("title") ?? short(firstLine, 80),
      content: text,
      boundaries: r.list("tag"),
      ...(edges.length ? { edges } : {}),
      valid_from: r.str("valid-from"),
    };
    const res = await r.client().ingest(r.archive(), { artifacts: [artifact] });
    printStored(r, res);
  },
};

/** The latest version as an artifact again (entities need their type and name: one lookup each). */
async function currentArtifact(r: Run, archive: string, d: ChunkDetail): Promise<Artifact> {
  const v = d.versions[d.versions.length - 1];
  if (!v) throw new UsageError(`chunk ${d.id} has no versions`);
  const client = r.client();
  const entities = [];
  for (const id of v.entities.slice(0, 200)) {
    try {
      const e = await client.entity(archive, id);
      entities.push({ type: e.type as NonNullable<Artifact["entities"]>[number]["type"], id: e.id, name: e.name });
    } catch {
      // A grounded concept the text produced: it is derived again from the new text.
    }
  }
  const c = await client.content(archive, d.id, { version: v.version, max_chars: 2 * 1024 * 1024 });
  return {
    id: d.id,
    kind: v.kind as Artifact["kind"],
    title: v.title,
    synopsis: v.synopsis,
    content: c.text,
    entities,
    boundaries: v.boundaries,
    edges: v.edges.map((e) => ({
      type: e.type as NonNullable<Artifact["edges"]>[number]["type"],
      target: e.target,
      weight: e.weight,
      ...(e.valid_from ? { valid_from: e.valid_from } : {}),
      ...(e.valid_to !== undefined ? { valid_to: e.valid_to } : {}),
      ...(e.context ? { context: e.context } : {}),
    })),
    relations: v.relations.map((x) => ({
      subject: x.subject,
      predicate: x.predicate,
      object: x.object,
      ...(x.subject_type ? { subject_type: x.subject_type as "concept" } : {}),
      ...(x.object_type ? { object_type: x.object_type as "concept" } : {}),
    })),
    source: v.source || undefined,
  };
}

const reviseCmd: Command = {
  name: "revise",
  args: "<id> [--content <text> | --file <path|->] [--title <title>] [--valid-from <time>]",
  summary:
    "Add a version of an existing chunk: the latest version with the new text and/or title (entities, tags and edges kept).",
  options: {
    content: valueOption("<text>", "the new content"),
    file: valueOption("<path|->", "read the new content from a file (- for stdin)"),
    title: valueOption("<title>", "a new title"),
    "valid-from": valueOption("<time>", "when the new version becomes valid (default: now)"),
  },
  async run(r) {
    const archive = r.archive();
    const id = r.arg(0);
    const content = await textArg(r);
    const title = r.str("title");
    if (content === undefined && title === undefined) throw new UsageError("give --content, --file or --title");
    const base = await currentArtifact(r, archive, await r.client().chunk(archive, id));
    const res = await r.client().revise(archive, {
      ...base,
      ...(content !== undefined ? { content, synopsis: undefined } : {}),
      ...(title !== undefined ? { title } : {}),
      valid_from: r.str("valid-from"),
    });
    printStored(r, res);
  },
};

const deprecateCmd: Command = {
  name: "deprecate",
  args: "<id> [--by <successor>] [--at <time>] [--reason <text>]",
  summary: "End a chunk's validity (history kept; queries as of earlier times still see it).",
  options: {
    by: valueOption("<id>", "the successor chunk (adds a deprecated-by edge)"),
    at: valueOption("<time>", "when it stops being valid (default: now)"),
    reason: valueOption("<text>", "why (kept in the history)"),
  },
  async run(r) {
    const res = await r.client().deprecate(r.archive(), {
      id: r.arg(0),
      by: r.str("by"),
      at: r.str("at"),
      reason: r.str("reason"),
    });
    if (r.json) printJson(r, res);
    else r.out(`deprecated ${res.deprecated} (last version ${res.version})${res.by ? `, succeeded by ${res.by}` : ""}`);
  },
};

const forgetCmd: Command = {
  name: "forget",
  args: "<chunk-id> | --entity <id>  --yes",
  summary: "Delete a chunk (every version) or an entity (with its mentions) for good; audited. Needs --yes.",
  options: {
    entity: valueOption("<id>", "delete this entity instead of a chunk"),
    yes: flagOption("confirm: the delete cannot be undone"),
  },
  async run(r) {
    const { chunk, entity } = chunkOrEntity(r, "forget");
    requireYes(r, `deleting ${chunk ?? entity}`);
    const res = entity
      ? await r.client().forgetEntity(r.archive(), entity)
      : await r.client().forgetChunk(r.archive(), chunk as string);
    if (r.json) printJson(r, res);
    else {
      const d = res.deleted;
      r.out(
        `deleted ${d.target} ${d.id}: ${d.versions} versions, ${d.edges} edges, ${d.entities.length} entities, ${d.content_objects} content objects (audit #${res.audit_id})`,
      );
    }
  },
};

const archivesDelete: Command = {
  name: "archives delete",
  args: "<id> --yes",
  summary: "Delete an archive with everything in it (admin key; audited). Needs --yes.",
  options: { yes: flagOption("confirm: the delete cannot be undone") },
  async run(r) {
    const id = r.arg(0);
    requireYes(r, `deleting archive ${id}`);
    const res = await r.admin().deleteArchive(id);
    if (r.json) printJson(r, res);
    else
      r.out(
        `deleted archive ${id}: ${res.deleted.versions} versions, ${res.deleted.content_objects} blobs (audit #${res.audit_id})`,
      );
  },
};

// ------------------------------------------------------------------ read

const chunksCmd: Command = {
  name: "chunks",
  args: "[--kind <k>] [--entity <id>] [--tag <t>] [--prefix <p>] [--title <t>] [--as-of <time>] [--limit <n>] [--all]",
  summary: "List chunks valid at a time, in id order, one page (or --all pages).",
  options: {
    ...asOf,
    kind: valueOption("<kind>", "paper, section, code_unit, note, ..."),
    entity: valueOption("<id>", "chunks mentioning this entity id"),
    tag: valueOption("<tag>", "chunks carrying this boundary tag"),
    prefix: valueOption("<p>", "chunk ids starting with this"),
    title: valueOption("<t>", "titles starting with this (case-insensitive)"),
    limit: pageLimitOption,
    cursor: valueOption("<c>", "next page (the cursor a previous page printed)"),
    all: flagOption("every page"),
  },
  async run(r) {
    const q = {
      kind: r.str("kind") as "paper" | undefined,
      entity: r.str("entity"),
      boundary: r.str("tag"),
      prefix: r.str("prefix"),
      title_prefix: r.str("title"),
      as_of: r.str("as-of"),
      limit: pageLimit(r),
    };
    const client = r.client();
    const archive = r.archive();
    const rows: string[][] = [["id", "kind", "v", "valid from", "title"]];
    const add = (c: { id: string; kind: string; version: number; valid_from: string; title: string }) =>
      rows.push([c.id, c.kind, String(c.version), c.valid_from.slice(0, 10), short(c.title, 60)]);
    if (r.values.all === true) {
      let n = 0;
      for await (const c of client.allChunks(archive, q)) {
        if (r.json) r.out(JSON.stringify(c));
        else add(c);
        n++;
      }
      if (!r.json) r.out(n ? table(rows) : "no chunks");
      return;
    }
    const page = await client.chunks(archive, { ...q, cursor: r.str("cursor") });
    if (r.json) printJson(r, page);
    else {
      for (const c of page.chunks) add(c);
      r.out(page.chunks.length ? table(rows) : "no chunks");
      printNextCursor(r, page.next_cursor);
    }
  },
};

const showCmd: Command = {
  name: "show",
  args: "<id> [--version <n>] [--as-of <time>] [--start <a>] [--end <b>]",
  summary: "Print a version's exact content (or the span [start, end), as card anchors count it).",
  options: {
    ...asOf,
    version: valueOption("<n>", "exact version (default: valid at --as-of)"),
    start: valueOption("<a>", "first character (default 0)"),
    end: valueOption("<b>", "end character, exclusive (default: the end)"),
  },
  async run(r) {
    const id = r.arg(0);
    const client = r.client();
    const archive = r.archive();
    const q = {
      version: r.int("version", 1, 1_000_000),
      as_of: r.str("as-of"),
      start: r.int("start", 0, 2 ** 31),
      end: r.int("end", 0, 2 ** 31),
    };
    let res = await client.content(archive, id, q);
    if (printedJson(r, res)) return;
    r.io.stdout.write(res.text);
    while (res.truncated && res.next_start !== null) {
      res = await client.content(archive, id, { ...q, version: res.version, start: res.next_start });
      r.io.stdout.write(res.text);
    }
    if (!res.text.endsWith("\n")) r.out();
  },
};

function renderChunk(d: ChunkDetail): string {
  const out = [
    `${d.id} (${d.kind}), ${d.versions.length} version${d.versions.length === 1 ? "" : "s"}${d.deprecated_at ? `, deprecated ${d.deprecated_at}${d.deprecated_by ? ` by ${d.deprecated_by}` : ""}${d.deprecation_reason ? `: ${d.deprecation_reason}` : ""}` : ""}`,
    table([
      ["v", "valid from", "valid to", "chars", "title"],
      ...d.versions.map((v) => [
        String(v.version),
        v.valid_from,
        v.valid_to ?? "-",
        String(v.content_chars),
        short(v.title, 50),
      ]),
    ]),
  ];
  if (d.edges.length)
    out.push(
      "edges:",
      table(
        d.edges.map((e) => [
          `  ${e.src === d.id ? `-> ${e.dst}` : `<- ${e.src}`}`,
          e.type,
          String(e.weight),
          `${e.valid_from.slice(0, 10)}..${e.valid_to?.slice(0, 10) ?? ""}`,
        ]),
      ),
    );
  return out.join("\n");
}

function renderEntity(e: EntityDetail): string {
  return [
    `${e.id} (${e.type}): ${e.name}${e.merged_into ? `, merged into ${e.merged_into} at ${e.merged_at}` : ""}`,
    "names:",
    table(e.aliases.map((a) => [`  ${a.alias}`, `${a.valid_from} .. ${a.valid_to ?? ""}`])),
    "events:",
    table(e.events.map((x) => [`  ${x.at}`, x.op, JSON.stringify(x.detail)])),
    `mentioned by ${e.mentions.length} chunk version${e.mentions.length === 1 ? "" : "s"}${
      e.mentions.length
        ? `: ${e.mentions
            .slice(0, 10)
            .map((m) => `${m.chunk}@v${m.version}`)
            .join(", ")}${e.mentions.length > 10 ? ", …" : ""}`
        : ""
    }`,
  ].join("\n");
}

const historyCmd: Command = {
  name: "history",
  args: "<chunk-id> | --entity <id>",
  summary: "A chunk's versions, edges and deprecation, or an entity's names, merges and mentions over time.",
  options: { entity: valueOption("<id>", "an entity id instead of a chunk") },
  async run(r) {
    const { chunk, entity } = chunkOrEntity(r, "history");
    if (entity) {
      const e = await r.client().entity(r.archive(), entity);
      r.out(r.json ? JSON.stringify(e, null, 2) : renderEntity(e));
    } else {
      const d = await r.client().chunk(r.archive(), chunk as string);
      r.out(r.json ? JSON.stringify(d, null, 2) : renderChunk(d));
    }
  },
};

const neighboursCmd = listCommand({
  name: "neighbours",
  args: "<id> [--as-of <time>]",
  summary:
    "A chunk's typed neighbours valid at a time (cites, part-of, implements, deprecated-by, ...), heaviest first.",
  options: { ...asOf },
  fetch: (r) => r.client().neighbours(r.archive(), { chunk: r.arg(0), as_of: r.str("as-of") }),
  head: ["direction", "type", "weight", "chunk"],
  rows: (res) =>
    res.neighbours.map((n) => [
      n.direction === "out" ? "->" : "<-",
      n.type,
      String(n.weight),
      `${n.chunk}${n.visible ? "" : " (not valid then)"}`,
    ]),
  empty: "no neighbours",
});

const deletionsCmd = listCommand({
  name: "deletions",
  args: "[--limit <n>]",
  summary: "The audit trail of hard deletes in the archive: what, who, when (never content).",
  options: { limit: entriesLimitOption },
  fetch: (r) => r.client().deletions(r.archive(), r.int("limit", 1, 500)),
  head: ["#", "at", "target", "id", "actor"],
  rows: (res) => res.deletions.map((d) => [String(d.id), d.at, d.target, d.target_id, d.actor]),
  empty: "no deletions",
});

const resolveCmd: Command = {
  name: "resolve",
  args: '"<name>" [--as-of <time>]',
  summary: "The entity a name, alias or identifier denotes (as of a time), following renames and merges.",
  options: { ...asOf },
  async run(r) {
    const mention = r.arg(0);
    const res = await r.client().resolve(r.archive(), { mention, as_of: r.str("as-of") });
    if (r.json) printJson(r, res);
    else if (res.resolved) {
      r.out(`${mention} -> ${res.resolved.entity} (${res.resolved.name}; via ${res.resolved.via})`);
      if (res.resolved.via === "grounded")
        r.out(
          "  a name grounded in the text, not a stored entity: `entity alias|rename|merge` take a stored entity's id (`paperguru entities`)",
        );
    } else if (res.candidates?.length)
      r.out(`${mention} is ambiguous: ${res.candidates.map((c) => `${c.entity} (${c.name})`).join(", ")}`);
    else r.out(`${mention}: no entity`);
    return res.resolved ? EXIT.ok : EXIT.failed;
  },
};

const entitiesCmd: Command = {
  name: "entities",
  args: "[--type <t>] [--prefix <p>] [--merged] [--limit <n>] [--cursor <c>]",
  summary: "List entities in id order with their current name and number of names.",
  options: {
    type: valueOption("<type>", "method, dataset, paper, person, concept, ..."),
    prefix: valueOption("<p>", "ids starting with this, e.g. method:"),
    merged: flagOption("include entities merged into another"),
    limit: pageLimitOption,
    cursor: valueOption("<c>", "next page"),
  },
  async run(r) {
    const page = await r.client().entities(r.archive(), {
      type: r.str("type") as "method" | undefined,
      prefix: r.str("prefix"),
      merged: r.values.merged === true ? "true" : undefined,
      limit: pageLimit(r),
      cursor: r.str("cursor"),
    });
    if (r.json) printJson(r, page);
    else {
      r.out(
        page.entities.length
          ? table([
              ["id", "type", "names", "name"],
              ...page.entities.map((e) => [
                e.id,
                e.type,
                String(e.aliases),
                `${e.name}${e.merged_into ? ` (merged into ${e.merged_into})` : ""}`,
              ]),
            ])
          : "no entities",
      );
      printNextCursor(r, page.next_cursor);
    }
  },
};

const entityOp = (op: "alias" | "rename" | "merge"): Command => ({
  name: `entity ${op}`,
  args: op === "merge" ? "<id> --into <id> [--at <time>]" : `<id> "<name>" [--at <time>]`,
  summary:
    op === "alias"
      ? "Add a name an entity is also known by (from --at on)."
      : op === "rename"
        ? "Rename an entity (the old name still resolves as a historical alias)."
        : "Merge an entity into another (its names and mentions follow from --at on).",
  options: {
    at: valueOption("<time>", "when it takes effect (default: now)"),
    ...(op === "merge" ? { into: valueOption("<id>", "the entity that survives") } : {}),
  },
  async run(r) {
    const entity = r.arg(0);
    const client = r.client();
    const at = r.str("at");
    if (op === "merge") {
      const into = r.str("into");
      if (!into) throw new UsageError("missing --into <id>", "entity merge");
      await client.merge(r.archive(), { entity, into, at });
      r.out(`merged ${entity} into ${into}`);
    } else if (op === "alias") {
      const name = r.arg(1);
      await client.alias(r.archive(), { entity, alias: name, at });
      r.out(`${entity} is also "${name}"`);
    } else {
      const name = r.arg(1);
      await client.rename(r.archive(), { entity, new_name: name, at });
      r.out(`${entity} is now "${name}"`);
    }
  },
});

const sessionAdd: Command = {
  name: "session add",
  args: '<session-id> "<text>" [--role user|assistant|tool]',
  summary: "Log a turn of a session; `context --session <id>` returns the recent ones in its short-term window.",
  options: { role: valueOption("<role>", "who said it (default user)") },
  async run(r) {
    const [session, text] = [r.arg(0), r.arg(1)];
    const res = await r
      .client()
      .appendSession(r.archive(), session, { events: [{ role: r.str("role") ?? "user", text }] });
    if (r.json) printJson(r, res);
    else r.out(`session ${session}: ${res.appended} event, ${res.tokens} tokens`);
  },
};

export const MEMORY_COMMANDS: Command[] = [
  noteCmd,
  reviseCmd,
  deprecateCmd,
  forgetCmd,
  chunksCmd,
  showCmd,
  historyCmd,
  resolveCmd,
  neighboursCmd,
  deletionsCmd,
  entitiesCmd,
  entityOp("alias"),
  entityOp("rename"),
  entityOp("merge"),
  sessionAdd,
  ...WEBHOOK_COMMANDS,
];

export const ADMIN_COMMANDS: Command[] = [archivesDelete];
