/**
 * The JSON dump is lossless and re-importable on archives built the ways users build them (file
 * imports of BibTeX, Markdown and full text, plain passages, conversation turns, revisions,
 * deprecations, entity operations, hard deletes): dump -> import into a new archive reports no
 * failure and no hash mismatch, the new archive dumps to the same archive, and importing the same
 * dump again changes nothing.
 */

import { describe, expect, it } from "vitest";
import { api, comparableDump, newArchive } from "./helpers";
import { WORKER } from "./worker";

async function raw(method: string, path: string, key: string, body?: string) {
  const res = await WORKER.fetch(`http://paperguru.test${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "text/plain" },
    ...(body === undefined ? {} : { body }),
  });
  return { status: res.status, text: await res.text() };
}

async function importFile(archive: string, key: string, format: string, body: string) {
  const r = await raw("POST", `/v1/archives/${archive}/import?format=${format}&name=f.${format}`, key, body);
  expect(r.status, r.text).toBe(200);
  // biome-ignore lint/suspicious/noExplicitAny: structural checks
  return JSON.parse(r.text) as any;
}

async function roundTrip(source: { id: string; key: string }) {
  const first = await raw("GET", `/v1/archives/${source.id}/export?format=json`, source.key);
  expect(first.status).toBe(200);
  const dump = JSON.parse(first.text);
  expect(dump.chunks.length).toBeGreaterThan(0);
  const b = await newArchive("rt");
  const imp = await raw("POST", `/v1/archives/${b.id}/import?format=archive&name=dump.json`, b.key, first.text);
  const body = JSON.parse(imp.text);
  expect(imp.status, imp.text.slice(0, 500)).toBe(200);
  expect(body.replay.hash_mismatches).toEqual([]);
  expect(body.failures).toEqual([]);
  const second = JSON.parse((await raw("GET", `/v1/archives/${b.id}/export?format=json`, b.key)).text);
  expect(comparableDump(second)).toEqual(comparableDump(dump));
  const before = (await api("GET", `/v1/archives/${b.id}`, undefined, b.key)).body.stats.storage;
  const again = JSON.parse(
    (await raw("POST", `/v1/archives/${b.id}/import?format=archive&name=dump.json`, b.key, first.text)).text,
  );
  expect(again.failures).toEqual([]);
  expect(again.replay.hash_mismatches).toEqual([]);
  expect(again.counts).toMatchObject({ created: 0, updated: 0, deprecated: 0, merged: 0, failed: 0 });
  expect(again.replay.versions.created).toBe(0);
  expect(again.replay.entity_ops.applied).toBe(0);
  expect((await api("GET", `/v1/archives/${b.id}`, undefined, b.key)).body.stats.storage).toEqual(before);
  expect(comparableDump(JSON.parse((await raw("GET", `/v1/archives/${b.id}/export?format=json`, b.key)).text))).toEqual(
    comparableDump(dump),
  );
}

const BIB = `
@article{lewis2020rag,
  title = {Retrieval-Augmented Generation for Knowledge-Intensive {NLP} Tasks},
  author = {Lewis, Patrick and Perez, Ethan and Piktus, Aleksandra},
  journal = {Advances in Neural Information Processing Systems},
  volume = {33},
  pages = {9459--9474},
  year = {2020},
  eprint = {2005.11401},
  archivePrefix = {arXiv},
  abstract = {Large pre-trained language models store factual knowledge in their parameters. We explore retrieval-augmented generation.}
}
@inproceedings{gutierrez2024hipporag,
  title = {HippoRAG: Neurobiologically Inspired Long-Term Memory for Large Language Models},
  author = {Guti{\\'e}rrez, Bernal Jim{\\'e}nez and Su, Yu},
  booktitle = {NeurIPS},
  year = {2024},
  month = may,
  doi = {10.5555/hipporag.2024}
}
`;

const MD = `---
title: Memory for Agents
date: 2025-02-03
---
# Memory for Agents: A Short Study

We compare memories for long-horizon agents (see 10.18653/v1/2021.eacl-main.74).

## Method

We route over heads first and expand contents last, as HippoRAG does with PageRank.

## References

1. Lewis, P. et al. (2020). Retrieval-Augmented Generation for Knowledge-Intensive NLP Tasks. NeurIPS.
2. Gutiérrez, B. J. et al. HippoRAG. doi:10.5555/hipporag.2024
`;

/** Passages whose derived synopsis (about 120 tokens) is cut at varying points, some inside a DOI. */
function passages(): unknown[] {
  const out: unknown[] = [];
  for (let pad = 0; pad < 24; pad++) {
    const lead = Array.from({ length: 45 + pad }, (_, i) => `word${i}`).join(" ");
    out.push({
      id: `passage:${pad}`,
      kind: "note",
      title: `Passage ${pad}`,
      content: `${lead} as shown in 10.18653/v1/2021.eacl-main.74 and arXiv:2104.06921v2 by the authors. Second sentence here. Third one.`,
    });
  }
  return out;
}

describe("dump round trip", () => {
  it("file imports: BibTeX then Markdown of the same papers (merged), full text", async () => {
    const a = await newArchive("rt-files");
    await importFile(a.id, a.key, "bibtex", BIB);
    await importFile(a.id, a.key, "markdown", MD);
    await roundTrip(a);
  }, 60_000);

  it("plain passages with identifiers near the synopsis cut; conversation turns; revisions and deletes", async () => {
    const a = await newArchive("rt-text");
    expect((await api("POST", `/v1/archives/${a.id}/ingest`, { artifacts: passages() }, a.key)).status).toBe(200);
    const turns = Array.from({ length: 12 }, (_, i) => ({
      id: `turn:${i}`,
      kind: "record",
      title: `Session 1, turn ${i}`,
      content: i % 2 ? `Melanie: I went hiking with Caroline on day ${i}.` : `Caroline: We talked about painting ${i}.`,
      boundaries: ["session:1"],
      valid_from: new Date(Date.UTC(2023, 4, 8, 13, i)).toISOString(),
    }));
    expect((await api("POST", `/v1/archives/${a.id}/ingest`, { artifacts: turns }, a.key)).status).toBe(200);
    expect(
      (
        await api(
          "POST",
          `/v1/archives/${a.id}/revise`,
          {
            id: "turn:3",
            kind: "record",
            title: "Session 1, turn 3",
            content: "Melanie: corrected.",
            boundaries: ["session:1"],
          },
          a.key,
        )
      ).status,
    ).toBe(200);
    expect((await api("POST", `/v1/archives/${a.id}/deprecate`, { id: "turn:4", by: "turn:3" }, a.key)).status).toBe(
      200,
    );
    expect((await api("DELETE", `/v1/archives/${a.id}/chunks?chunk=passage%3A5`, undefined, a.key)).status).toBe(200);
    await roundTrip(a);
  }, 60_000);
});
