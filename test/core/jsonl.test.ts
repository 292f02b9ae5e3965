/** JSON Lines of artifacts: detected by extension and content, sent 200 per request. */
import { describe, expect, it } from "vitest";
import { parseImport } from "../../src/app/intake/imports";
import { detectFormat, JSONL_ARTIFACTS, splitRecords } from "../../src/cli/import";

const line = (i: number) =>
  JSON.stringify({ id: `note:${i}`, kind: "note", title: `Note ${i}`, content: `Text ${i}.` });

describe("JSONL artifact feeds", () => {
  it("are detected from a .jsonl whose lines are artifacts, and split into ingest-sized pieces", () => {
    const text = Array.from({ length: 450 }, (_, i) => line(i)).join("\n");
    expect(detectFormat("notes.jsonl", text)).toBe("json");
    expect(detectFormat("notes.jsonl", '{"paper_id":"1","body_text":[]}')).toBe("fulltext");
    expect(detectFormat("notes.jsonl", '{"something":"else"}')).toBeNull();
    const pieces = splitRecords("notes.jsonl", text, "json");
    expect(pieces.map((p) => p.split("\n").length)).toEqual([JSONL_ARTIFACTS, JSONL_ARTIFACTS, 50]);
  });

  it("parse on the server as one feed: artifacts and feed objects per line; a bad line is named", () => {
    const text = `${line(1)}\n\n${JSON.stringify({ artifacts: [JSON.parse(line(2))], deprecations: [{ id: "note:0" }] })}\n`;
    const r = parseImport("json", text, "f.jsonl");
    expect(r.ok).toBe(true);
    if (r.ok) {
      expect(r.value.artifacts.map((a) => a.id)).toEqual(["note:1", "note:2"]);
      expect(r.value.deprecations.map((d) => d.id)).toEqual(["note:0"]);
    }
    const bad = parseImport("json", `${line(1)}\n{oops\n`, "f.jsonl");
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error.message).toContain("line 2 is not valid JSON");
  });
});
