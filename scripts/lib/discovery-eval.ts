/**
 * One-shot discovery's deduplication (Paper Circle C.2) on the recorded engine answers in
 * test/fixtures/sources (no test data needed, no network): each answer is parsed by its source's
 * parser, as `POST /discover` does, and the five lists are merged (src/core/research/discover.ts).
 * Gold, labelled by hand from the fixtures: HippoRAG (arXiv 2405.14831) is in all five answers,
 * under an arXiv id (arXiv, Semantic Scholar), an arXiv DOI (OpenAlex, Crossref) and a bare title
 * (DBLP), so it must come out as one record naming all five engines; no two merged records may be
 * one work (equal normalised titles).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { ImportPlan } from "../../src/core/formats/types";
import {
  DISCOVERY_ENGINES,
  type Engine,
  type FoundRecord,
  mergeRecords,
  normTitle,
  recordsOf,
} from "../../src/core/research/discover";
import { parseArxivFeed } from "../../src/core/sources/arxiv";
import { parseCrossrefWorks } from "../../src/core/sources/crossref";
import { parseDblp } from "../../src/core/sources/dblp";
import { parseOpenAlexWorks } from "../../src/core/sources/openalex";
import { parseSemanticScholar } from "../../src/core/sources/semanticscholar";

const FIXTURES = join(import.meta.dirname, "..", "..", "test", "fixtures", "sources");
const FILES: Record<Engine, string> = {
  arxiv: "arxiv-feed.xml",
  openalex: "openalex-works.json",
  crossref: "crossref-works.json",
  semanticscholar: "semanticscholar-search.json",
  dblp: "dblp-search.json",
};
const HIPPO = "arxiv:2405.14831";

export interface DiscoveryDedupEval {
  engines: number;
  fetched: number;
  unique: number;
  mergedByDoi: number;
  mergedByArxiv: number;
  mergedByTitle: number;
  /** Engines naming the HippoRAG record after the merge (gold: 5). */
  hippoEngines: number;
  /** Merged records that are the same work as another (equal normalised titles; gold: 0). */
  duplicatesLeft: number;
}

function parse(engine: Engine, text: string): ImportPlan {
  const r =
    engine === "arxiv"
      ? parseArxivFeed(text, { source: "https://export.arxiv.org/api/query" })
      : engine === "openalex"
        ? parseOpenAlexWorks(text)
        : engine === "crossref"
          ? parseCrossrefWorks(text)
          : engine === "semanticscholar"
            ? parseSemanticScholar(text)
            : parseDblp(text);
  if (!r.ok) throw new Error(`${engine} fixture: ${r.error.message}`);
  return r.value;
}

/** The five recorded answers as record lists, in engine order. */
export function fixtureRecordLists(): FoundRecord[][] {
  return DISCOVERY_ENGINES.map((e) => recordsOf(parse(e, readFileSync(join(FIXTURES, FILES[e]), "utf8")), e));
}

export function discoveryDedupEval(): DiscoveryDedupEval {
  const lists = fixtureRecordLists();
  const m = mergeRecords(lists);
  const titles = new Map<string, number>();
  for (const r of m.records) titles.set(normTitle(r.title), (titles.get(normTitle(r.title)) ?? 0) + 1);
  return {
    engines: lists.length,
    fetched: m.fetched,
    unique: m.records.length,
    mergedByDoi: m.byDoi,
    mergedByArxiv: m.byArxiv,
    mergedByTitle: m.byTitle,
    hippoEngines: m.records.find((r) => r.ids.includes(HIPPO))?.engines.length ?? 0,
    duplicatesLeft: [...titles.values()].reduce((n, c) => n + (c - 1), 0),
  };
}
