/** Over the per-request CPU budget: a 413 naming the estimate and the budget, before any work, nothing stored. */

import { describe, expect, it } from "vitest";
import { cpuBudgetChars } from "../../src/core/limits";
import { api, newArchive } from "./helpers";
import { WORKER } from "./worker";

describe("per-request CPU budget", () => {
  it("refuses a BibTeX file that would take seconds to parse, and an oversized ingest batch", async () => {
    const { id, key } = await newArchive("cpu");
    const entry = (i: number) => `@misc{k${i}, title = {Entry ${i}}, abstract = {${"word ".repeat(400)}}}\n`;
    let bib = "";
    for (let i = 0; bib.length <= cpuBudgetChars("bibtex"); i++) bib += entry(i);
    const r = await WORKER.fetch(`http://paperguru.test/v1/archives/${id}/import?format=bibtex&name=big.bib`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "text/plain" },
      body: bib,
    });
    expect(r.status).toBe(413);
    const body = (await r.json()) as { error: { type: string; field: string; message: string; hint: string } };
    expect(body.error.field).toBe("body");
    expect(body.error.message).toMatch(/needs an estimated [\d,]+ ms of CPU; the per-request CPU budget is 2,000 ms/);
    expect(body.error.hint).toContain("characters of bibtex per request");

    const content = "Sparse retrieval remains a strong baseline for agent memory. ".repeat(34_000); // ~2 MB
    const n = Math.ceil(cpuBudgetChars("analyse") / content.length) + 1;
    const batch = Array.from({ length: n }, (_, i) => ({ id: `c${i}`, kind: "note", title: `t${i}`, content }));
    const ing = await api("POST", `/v1/archives/${id}/ingest`, { artifacts: batch }, key);
    expect(ing.status).toBe(413);
    expect(ing.body.error.field).toBe("artifacts");
    expect(ing.body.error.message).toContain("per-request CPU budget");
    const info = await api("GET", `/v1/archives/${id}`, undefined, key);
    expect(info.body.stats.storage.chunks).toBe(0);
    expect((await api("GET", `/v1/archives/${id}/ingest-log`, undefined, key)).body.entries).toEqual([]);
  }, 60_000);
});
