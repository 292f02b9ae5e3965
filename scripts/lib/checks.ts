/**
 * Lifecycle and import checks of the evaluation, kept as they were: staleness on real dated
 * revisions (s2orc README), Wikipedia revision sets and synthetic archives; the unarXive full-text
 * import (references, identifiers, lossless export). Each talks to PaperGuru through its API only.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import MiniSearch from "minisearch";
import { PaperGuruClient } from "../../src/client";
import { parseFullTextPapers } from "../../src/core/formats/fulltext";
import { paperIdentity } from "../../src/core/formats/paper";
import { slug } from "../../src/core/ids";
import { harnessFetch, type Server } from "./server";

type Params = Record<string, number> | undefined;

interface VersionRow {
  version: string;
  date: string;
  text: string;
}

/**
 * Staleness on real revisions: the 68 dated versions of the s2orc README become versions of one
 * chunk (identical consecutive texts are no-ops). At 60 as-of dates we ask for the latest release;
 * evidence is stale when it is not the version valid at that date. PaperGuru answers with as_of;
 * the version-blind baseline is BM25 over every version stored as its own document (what a flat
 * store that appends revisions does), taking its top hit. Reported next to 1 - (1 - rho)^T.
 */
export async function staleness(server: Server, dir: string) {
  const f = join(dir, "versions", "s2orc_readme_versions.jsonl");
  if (!existsSync(f)) return null;
  const rows = readFileSync(f, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as VersionRow);
  const admin = new PaperGuruClient(server.url, server.adminKey, { fetch: harnessFetch });
  const id = `eval-stale-${Date.now().toString(36)}`;
  const created = await admin.createArchive({ id, name: "s2orc README versions" });
  const pg = admin.withKey(created.key.secret);
  // Our version number for each stored revision, and when it became valid.
  const stored: Array<{ from: number; text: string; ours: number }> = [];
  for (const r of rows) {
    const from = Date.parse(r.date);
    const res = await pg.ingest(id, {
      artifacts: [
        {
          id: "s2orc:readme",
          kind: "record",
          title: "S2ORC README",
          content: r.text,
          valid_from: new Date(from).toISOString(),
        },
      ],
    });
    const x = res.results[0] as { status: string; version: number };
    if (x.status !== "unchanged") stored.push({ from, text: r.text, ours: x.version });
  }
  const validAt = (t: number) => [...stored].reverse().find((v) => v.from <= t) ?? null;
  const bm25 = new MiniSearch<{ id: number; text: string }>({ fields: ["text"] });
  bm25.addAll(stored.map((v, i) => ({ id: i, text: v.text })));
  const q = "What is the latest release of the S2ORC corpus and its release date?";
  const first = stored[0]?.from ?? 0;
  const last = stored[stored.length - 1]?.from ?? 0;
  let pgStale = 0;
  let blindStale = 0;
  let asked = 0;
  for (let i = 0; i < 60; i++) {
    const t = first + ((last - first) * (i + 0.5)) / 60;
    const truth = validAt(t);
    if (!truth) continue;
    asked++;
    const c = await pg.context(id, { query: q, as_of: new Date(t).toISOString(), budget_tokens: 1500, max_cards: 1 });
    const card = (c.cards as Array<{ version: number }>)[0];
    if (!card || card.version !== truth.ours) pgStale++;
    const top = bm25.search(q)[0];
    const blind = top ? stored[top.id as number] : undefined;
    if (!blind || blind.ours !== truth.ours) blindStale++;
  }
  // Empirical revision rate per step: revisions per as-of step over the span.
  const rho = Math.min(1, (stored.length - 1) / 60);
  return {
    versions: rows.length,
    stored: stored.length,
    asked,
    pgStale: pgStale / asked,
    blindStale: blindStale / asked,
    rho,
    bound: 1 - (1 - rho) ** 60,
  };
}

/**
 * Wikipedia revision sets (50 articles, ordered revisions, no dates): revision k gets the synthetic
 * date t0 + k days. For each article we ask at a date inside its history; evidence is stale when it
 * is not the revision valid then. Version-blind baseline: BM25 over that article's revisions
 * stored as separate documents, top hit for the article title.
 */
export async function wikipediaStaleness(server: Server, dir: string, params: Params) {
  const root = join(dir, "versions", "wikipedia");
  if (!existsSync(root)) return null;
  const admin = new PaperGuruClient(server.url, server.adminKey, { fetch: harnessFetch });
  const id = `eval-wiki-${Date.now().toString(36)}`;
  const created = await admin.createArchive({ id, name: "Wikipedia revisions", params });
  const pg = admin.withKey(created.key.secret);
  const day = 86_400_000;
  const t0 = Date.parse("2010-01-01");
  let asked = 0;
  let pgStale = 0;
  let pgMissed = 0;
  let blindStale = 0;
  let revisions = 0;
  for (const [ai, article] of readdirSync(root).sort().entries()) {
    const files = readdirSync(join(root, article))
      .filter((f) => /^\d+\.txt$/.test(f))
      .sort((a, b) => Number.parseInt(a, 10) - Number.parseInt(b, 10));
    const stored: Array<{ k: number; text: string; ours: number }> = [];
    for (const [k, f] of files.entries()) {
      const text = readFileSync(join(root, article, f), "utf8");
      if (!text.trim()) continue;
      const res = await pg.ingest(id, {
        artifacts: [
          {
            id: `wiki:${slug(article)}`,
            kind: "record",
            title: article,
            content: text,
            valid_from: new Date(t0 + k * day).toISOString(),
          },
        ],
      });
      const x = res.results[0] as { status: string; version: number };
      if (x.status !== "unchanged") stored.push({ k, text, ours: x.version });
    }
    revisions += stored.length;
    if (stored.length < 2) continue;
    // Ask in the middle of the history (deterministic per article), half a day after a revision.
    const pick = stored[Math.floor((ai * 7919) % (stored.length - 1))] as { k: number; ours: number };
    const at = t0 + pick.k * day + day / 2;
    const truth = [...stored].reverse().find((v) => t0 + v.k * day <= at);
    asked++;
    const c = await pg.context(id, {
      query: `What does the article ${article} say?`,
      as_of: new Date(at).toISOString(),
      budget_tokens: 1500,
      max_cards: 3,
    });
    const card = (c.cards as Array<{ artifact_id: string; version: number }>).find(
      (x) => x.artifact_id === `wiki:${slug(article)}`,
    );
    // A missing card is a retrieval miss, counted apart: staleness is about the evidence returned.
    if (!card) pgMissed++;
    else if (card.version !== truth?.ours) pgStale++;
    const bm25 = new MiniSearch<{ id: number; text: string }>({ fields: ["text"] });
    bm25.addAll(stored.map((v, i) => ({ id: i, text: v.text })));
    const top = bm25.search(article)[0];
    if (!top || stored[top.id as number]?.ours !== truth?.ours) blindStale++;
  }
  return { articles: asked, revisions, pgStale: pgStale / asked, pgMissed, blindStale: blindStale / asked };
}

/** Synthetic staleness: N chunks revised with probability rho per step for T steps. */
export async function syntheticStaleness(server: Server, rho: number, T: number, n: number) {
  const admin = new PaperGuruClient(server.url, server.adminKey, { fetch: harnessFetch });
  const id = `eval-syn-${Math.round(rho * 100)}-${Date.now().toString(36)}`;
  const created = await admin.createArchive({ id, name: `synthetic rho=${rho}` });
  const pg = admin.withKey(created.key.secret);
  let x = 12345;
  const rand = () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 0x100000000;
  };
  const day = 86_400_000;
  const t0 = Date.parse("2024-01-01");
  const versionAt: number[][] = Array.from({ length: n }, () => [0]);
  await pg.ingest(id, {
    artifacts: Array.from({ length: n }, (_, i) => ({
      id: `fact:${i}`,
      kind: "record" as const,
      title: `Fact ${i}`,
      content: `Fact ${i} value is 0.`,
      valid_from: new Date(t0).toISOString(),
    })),
  });
  for (let step = 1; step <= T; step++) {
    const batch = [];
    for (let i = 0; i < n; i++) {
      const hist = versionAt[i] as number[];
      if (rand() < rho) {
        hist.push(step);
        batch.push({
          id: `fact:${i}`,
          kind: "record" as const,
          title: `Fact ${i}`,
          content: `Fact ${i} value is ${step}.`,
          valid_from: new Date(t0 + step * day).toISOString(),
        });
      }
    }
    for (let k = 0; k < batch.length; k += 200) await pg.ingest(id, { artifacts: batch.slice(k, k + 200) });
  }
  // Ask at the start (t = 0 + half a day) about every fact: the truth is value 0.
  let pgStale = 0;
  let blindStale = 0;
  for (let i = 0; i < n; i++) {
    const c = await pg.expand(id, {
      query: `Fact ${i} value`,
      chunks: [{ id: `fact:${i}` }],
      as_of: new Date(t0 + day / 2).toISOString(),
      budget_tokens: 400,
    });
    const card = (c.cards as Array<{ version: number }>)[0];
    if (card?.version !== 1) pgStale++;
    // Version-blind: the store holds only what it saw last (or any version without its time).
    if ((versionAt[i] as number[]).length > 1) blindStale++;
  }
  return { rho, T, n, pgStale: pgStale / n, blindStale: blindStale / n, bound: 1 - (1 - rho) ** T };
}

interface UnarxiveBib {
  bib_entry_raw: string;
  ids?: { open_alex_id?: string; doi?: string; arxiv_id?: string };
}
interface UnarxivePaper {
  paper_id: string;
  metadata: { title: string; abstract: string; versions?: Array<{ version: string; created: string }> };
  body_text: Array<{ section: string | null; text: string }>;
  bib_entries: Record<string, UnarxiveBib>;
}

/**
 * Full-text papers through the file import (`POST /import?format=fulltext`, the same parser the
 * CLI uses): the unarXive sample (49 papers, 1,786 bibliography entries) in requests of 10 papers,
 * then the same files again (must be all `unchanged`). Reported: import throughput, how many
 * references carry an identifier and how many distinct canonical entities they make (the same work
 * cited by several papers is one entity), whether every id form of a reference resolves to that one
 * entity through /resolve, and the title-only references: how many distinct title entities they
 * make, how many are cited by two or more papers, and how many land on a paper of the sample.
 */
export async function unarxive(server: Server, dir: string, params: Params) {
  const f = join(dir, "unarxive", "arXiv_src_2212_086.jsonl");
  if (!existsSync(f)) return null;
  const lines = readFileSync(f, "utf8").split("\n").filter(Boolean);
  const papers = lines.map((l) => JSON.parse(l) as UnarxivePaper);
  const admin = new PaperGuruClient(server.url, server.adminKey, { fetch: harnessFetch });
  const id = `eval-unarxive-${Date.now().toString(36)}`;
  const created = await admin.createArchive({ id, name: "unarXive sample", params });
  const pg = admin.withKey(created.key.secret);
  const sum = (acc: Record<string, number>, c: Record<string, number>) => {
    for (const [k, v] of Object.entries(c)) acc[k] = (acc[k] ?? 0) + v;
  };
  const first: Record<string, number> = {};
  const again: Record<string, number> = {};
  const t0 = performance.now();
  for (let i = 0; i < lines.length; i += 10)
    sum(first, (await pg.importText(id, "fulltext", lines.slice(i, i + 10).join("\n"), `unarxive-${i}.jsonl`)).counts);
  const importMs = performance.now() - t0;
  const t1 = performance.now();
  for (let i = 0; i < lines.length; i += 10)
    sum(again, (await pg.importText(id, "fulltext", lines.slice(i, i + 10).join("\n"), `unarxive-${i}.jsonl`)).counts);
  const reimportMs = performance.now() - t1;

  // Ground truth from the raw records: forms that appear together in one bibliography entry name
  // the same work, so works are the connected components of co-occurring forms (union-find).
  let refs = 0;
  let withIds = 0;
  const parent = new Map<string, string>();
  const find = (x: string): string => {
    const p = parent.get(x) ?? x;
    if (p === x) return x;
    const r = find(p);
    parent.set(x, r);
    return r;
  };
  const entries: string[][] = [];
  for (const p of papers) {
    for (const b of Object.values(p.bib_entries)) {
      refs++;
      const forms = [
        b.ids?.arxiv_id ? `arXiv:${b.ids.arxiv_id}` : "",
        b.ids?.doi ? `doi:${b.ids.doi}` : "",
        b.ids?.open_alex_id ?? "",
      ].filter(Boolean);
      const ids = paperIdentity(forms, "")?.ids ?? [];
      if (forms.length === 0 || ids.length === 0) continue;
      withIds++;
      entries.push(forms);
      for (const x of ids) if (!parent.has(x)) parent.set(x, x);
      for (const x of ids.slice(1)) parent.set(find(x), find(ids[0] as string));
    }
  }
  const works = new Set([...parent.keys()].map(find));
  // Every form of an entry must resolve to one entity, and all entries of a work to the same one.
  const entityOfWork = new Map<string, Set<string>>();
  const resolved = new Map<string, string | undefined>();
  let consistent = 0;
  for (const forms of entries) {
    const got = new Set<string | undefined>();
    for (const form of forms) {
      if (!resolved.has(form)) resolved.set(form, (await pg.resolve(id, { mention: form })).resolved?.entity);
      got.add(resolved.get(form));
    }
    const work = find(paperIdentity(forms, "")?.id ?? "");
    const set = entityOfWork.get(work) ?? new Set<string>();
    for (const g of got) set.add(g ?? "(unresolved)");
    entityOfWork.set(work, set);
    if (got.size === 1 && !got.has(undefined)) consistent++;
  }
  const worksOneEntity = [...entityOfWork.values()].filter((x) => x.size === 1 && !x.has("(unresolved)")).length;
  const entities = new Set([...entityOfWork.values()].flatMap((x) => [...x]));
  const checked = entries.length;
  // Lossless export: dump the archive, replay it into a new one, compare routing on 20 queries.
  const t2 = performance.now();
  const dump = await pg.export(id, { format: "json" });
  const exportMs = performance.now() - t2;
  const copyId = `${id}-copy`;
  const copy = admin.withKey((await admin.createArchive({ id: copyId, name: "unarXive copy", params })).key.secret);
  const t3 = performance.now();
  await copy.importText(copyId, "archive", dump, "dump.json");
  const reimportDumpMs = performance.now() - t3;
  let sameRoutes = 0;
  const routeQueries = papers.slice(0, 20).map((p) => p.metadata.title.replace(/\s+/g, " "));
  for (const q of routeQueries) {
    const [a, b] = await Promise.all([
      pg.route(id, { query: q, limit: 10 }),
      copy.route(copyId, { query: q, limit: 10 }),
    ]);
    const key = (r: typeof a) => JSON.stringify(r.selected.map((x) => [x.chunk, x.version]));
    if (key(a) === key(b)) sameRoutes++;
  }
  // Title-only references: the same work cited by title from several papers is one entity.
  const titleRefs = new Map<string, Set<string>>(); // title id -> citing papers
  const plan = parseFullTextPapers(lines.join("\n"));
  if (plan.ok)
    for (const a of plan.value.artifacts)
      for (const e of a.edges ?? [])
        if (e.type === "cites" && e.target.startsWith("paper:")) {
          const set = titleRefs.get(e.target) ?? new Set<string>();
          set.add(a.id.split("#")[0] as string);
          titleRefs.set(e.target, set);
        }
  return {
    papers: papers.length,
    chunks: first.created ?? 0,
    importMs,
    reimportMs,
    first,
    again,
    refs,
    withIds,
    entities: entities.size,
    works: works.size,
    worksOneEntity,
    dumpBytes: dump.length,
    exportMs,
    reimportDumpMs,
    sameRoutes,
    routeQueries: routeQueries.length,
    checked,
    consistent,
    titleEntities: titleRefs.size,
    titleShared: [...titleRefs.values()].filter((s) => s.size >= 2).length,
  };
}

/** A dump without what differs between archives by design: record times and sequence numbers. */
function comparableDump(text: string): string {
  const d = JSON.parse(text) as {
    chunks: Array<{ versions: Array<Record<string, unknown>>; annotations?: Array<Record<string, unknown>> }>;
    entities: Array<{ created?: { name: string; at: number } | null; ops: Array<Record<string, unknown>> }>;
    deprecations: Array<Record<string, unknown>>;
    edges: unknown;
  };
  const drop = (o: Record<string, unknown>, ...keys: string[]) =>
    Object.fromEntries(Object.entries(o).filter(([k]) => !keys.includes(k)));
  return JSON.stringify({
    chunks: d.chunks.map((c) => ({
      ...c,
      versions: c.versions.map((v) => drop(v, "recorded_at")),
      // Sequence numbers are the copy's own; a replay gives events without an id `dump:<seq>`.
      ...(c.annotations ? { annotations: c.annotations.map((a) => drop(a, "seq", "event_id")) } : {}),
    })),
    entities: d.entities.map((e) => ({
      ...e,
      created: e.created ? { name: e.created.name, at: e.created.at } : null,
      ops: e.ops.map((o) => drop(o, "recorded_at", "seq")),
    })),
    deprecations: d.deprecations.map((x) => drop(x, "recorded_at")),
    // A set: exported in insertion order, which a replay (grouped by record time) need not repeat.
    edges: (d.edges as unknown[]).map((e) => JSON.stringify(e)).sort(),
  });
}

/**
 * The JSON dump of an archive, imported into a new archive and then imported again: failures and
 * hash mismatches of the first import, whether the copy dumps to the same archive, and what the
 * second import changed (nothing, when the dump is lossless and re-importable).
 */
export async function dumpRoundTrip(
  server: Server,
  source: { id: string; pg: PaperGuruClient },
  name: string,
  params: Params,
) {
  const admin = new PaperGuruClient(server.url, server.adminKey, { fetch: harnessFetch });
  const ms: Record<string, number> = {};
  let t = performance.now();
  const lap = (name: string) => {
    ms[name] = Math.round(performance.now() - t);
    t = performance.now();
  };
  const dump = await source.pg.export(source.id, { format: "json" });
  lap("export");
  const copyId = `${source.id}-rt`.slice(0, 64);
  const copy = admin.withKey(
    (await admin.createArchive({ id: copyId, name: `${name} (dump copy)`, params })).key.secret,
  );
  type Replay = { counts: Record<string, number>; failures: unknown[]; replay?: { hash_mismatches: unknown[] } };
  lap("createCopy");
  const first = (await copy.importText(copyId, "archive", dump, "dump.json")) as unknown as Replay;
  lap("import");
  const storage = async () => JSON.stringify((await copy.archive(copyId)).stats.storage);
  const before = await storage();
  lap("stats");
  const second = (await copy.importText(copyId, "archive", dump, "dump.json")) as unknown as Replay;
  lap("reimport");
  const after = await storage();
  lap("stats2");
  const copied = await copy.export(copyId, { format: "json" });
  lap("exportCopy");
  const a = comparableDump(dump);
  const b = comparableDump(copied);
  let at = 0;
  while (at < a.length && a[at] === b[at]) at++;
  const same = a === b;
  lap("compare");
  return {
    archive: name,
    chunks: (JSON.parse(dump) as { chunks: unknown[] }).chunks.length,
    dumpBytes: dump.length,
    firstFailures: first.failures.length,
    firstMismatches: first.replay?.hash_mismatches.length ?? 0,
    sameDump: same,
    /** Where the two dumps first differ (for a diagnosis), or null. */
    firstDifference: same
      ? null
      : { source: a.slice(Math.max(0, at - 200), at + 200), copy: b.slice(Math.max(0, at - 200), at + 200) },
    secondCreated: (second.counts.created ?? 0) + (second.counts.updated ?? 0),
    secondFailures: second.failures.length + (second.replay?.hash_mismatches.length ?? 0),
    storageUnchanged: before === after,
    ms,
  };
}
