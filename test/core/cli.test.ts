import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_URL, loadConfig, resolveSettings, saveConfig } from "../../src/cli/config";
import {
  BIBTEX_ENTRIES,
  countRecords,
  detectFormat,
  JSONL_RECORDS,
  pieceHash,
  splitRecords,
} from "../../src/cli/import";
import { extractAnchors } from "../../src/cli/render";

describe("paperguru import: format detection", () => {
  it("uses the extension, then the JSON shape", () => {
    expect(detectFormat("refs.bib", "@article{x, title={T}}")).toBe("bibtex");
    expect(detectFormat("paper.md", "# T")).toBe("markdown");
    expect(detectFormat("feed.json", '{"artifacts": []}')).toBe("json");
    expect(detectFormat("kg.json", '{"paper_title": "x", "techniques": []}')).toBe("xkg");
    expect(detectFormat("papers.jsonl", '{"paper_id": "1", "body_text": []}\n')).toBe("fulltext");
    expect(detectFormat("data.json", '{"foo": 1}')).toBeNull();
    expect(detectFormat("notes.txt", "plain")).toBeNull();
  });

  it("sends JSONL in pieces of 10 records and other files whole", () => {
    const lines = Array.from({ length: 25 }, (_, i) => JSON.stringify({ paper_id: String(i) }));
    const pieces = splitRecords("papers.jsonl", `${lines.join("\n")}\n`);
    expect(pieces.map((p) => p.split("\n").length)).toEqual([JSONL_RECORDS, JSONL_RECORDS, 5]);
    expect(pieces.join("\n")).toBe(lines.join("\n"));
    expect(splitRecords("refs.bib", "@a{x}\n@b{y}")).toEqual(["@a{x}\n@b{y}"]);
  });

  it("sends large BibTeX files in pieces that each carry the @string macros", () => {
    const entries = Array.from(
      { length: BIBTEX_ENTRIES + 20 },
      (_, i) => `@article{k${i},\n  title = {T${i}},\n  journal = jml\n}\n`,
    );
    const text = `% my library\n@string{jml = {Journal of ML}}\n${entries.join("")}@comment{end}\n`;
    const pieces = splitRecords("refs.bib", text);
    expect(pieces).toHaveLength(2);
    for (const p of pieces) expect(p.startsWith("% my library\n@string{jml = {Journal of ML}}\n")).toBe(true);
    const keys = pieces.flatMap((p) => [...p.matchAll(/@article\{(k\d+)/g)].map((m) => m[1]));
    expect(keys).toEqual(entries.map((_, i) => `k${i}`));
    expect(splitRecords("small.bib", entries.slice(0, 3).join(""))).toHaveLength(1);
  });
});

describe("paperguru CLI: pure helpers", () => {
  it("detects a PaperGuru archive dump and counts records per piece", () => {
    expect(detectFormat("dump.json", '{"format":"paperguru.archive","schema_version":1,"chunks":[]}')).toBe("archive");
    expect(countRecords("archive", "dump.json", '{"format":"paperguru.archive","chunks":[{},{},{}]}')).toBe(3);
    expect(countRecords("json", "feed.json", '{"artifacts":[{},{}],"deprecations":[{}]}')).toBe(3);
    expect(countRecords("fulltext", "p.jsonl", '{"a":1}\n{"a":2}\n')).toBe(2);
    expect(countRecords("bibtex", "r.bib", "@string{j = {J}}\n@article{a,\n}\n@book{b,\n}\n")).toBe(2);
    expect(pieceHash("bibtex", "x")).not.toBe(pieceHash("markdown", "x"));
  });

  it("takes anchors from a list, {anchors}, or a context response", () => {
    const a = { artifact_id: "x", version: 1, start: 0, end: 3, snippet: "abc" };
    expect(extractAnchors([a])).toEqual([a]);
    expect(extractAnchors({ anchors: [a] })).toEqual([a]);
    expect(extractAnchors({ cards: [{ anchored_spans: [a] }, { anchored_spans: [] }] })).toEqual([a]);
    expect(extractAnchors({ cards: [] })).toEqual([]);
    expect(extractAnchors({ foo: 1 })).toBeNull();
    expect(extractAnchors([{ artifact_id: "x" }])).toBeNull();
  });

  it("resolves settings: flag over environment over config file over the default", () => {
    const dir = mkdtempSync(join(tmpdir(), "pg-config-"));
    try {
      const path = join(dir, "c", "config.json");
      saveConfig(path, { url: "http://127.0.0.1:1", key: "pgk_file", archive: "from-file" });
      expect(statSync(path).mode & 0o777).toBe(0o600);
      const env = { PAPERGURU_CONFIG: path, PAPERGURU_KEY: "pgk_env" };
      const s = resolveSettings(env, { archive: "from-flag" });
      expect([s.url.value, s.url.origin]).toEqual(["http://127.0.0.1:1", "config"]);
      expect([s.key.value, s.key.origin]).toEqual(["pgk_env", "env"]);
      expect([s.archive.value, s.archive.origin]).toEqual(["from-flag", "flag"]);
      expect(s.adminKey.origin).toBe("unset");
      expect(resolveSettings({ PAPERGURU_CONFIG: join(dir, "none.json") }, {}).url.value).toBe(DEFAULT_URL);
      expect(loadConfig(join(dir, "none.json"))).toEqual({});
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
