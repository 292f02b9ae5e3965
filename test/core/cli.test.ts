import { describe, expect, it } from "vitest";
import { detectFormat } from "../../src/cli/import";

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
});
