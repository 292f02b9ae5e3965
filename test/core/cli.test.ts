import { describe, expect, it } from "vitest";
import { BIBTEX_ENTRIES, detectFormat, JSONL_RECORDS, splitRecords } from "../../src/cli/import";

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
