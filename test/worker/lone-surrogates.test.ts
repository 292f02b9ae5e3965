/**
 * Text with an unpaired UTF-16 surrogate cannot be stored exactly (UTF-8 turns it into U+FFFD):
 * every text field that is stored answers 400 naming the field, as content and title do, and
 * stores nothing. Bodies are sent as raw JSON with `\ud800` escapes (JSON.stringify would too).
 */
import { describe, expect, it } from "vitest";
import { api, newArchive } from "./helpers";

const LONE = "bad \\ud800 text";

describe("lone surrogates are refused, naming the field", () => {
  it("entity names and aliases, source, reasons, aliases and renames", async () => {
    const { id, key } = await newArchive("surrogate");
    const ok = await api(
      "POST",
      `/v1/archives/${id}/ingest`,
      { artifacts: [{ id: "note:a", kind: "note", title: "A", content: "Ann Lee wrote it." }] },
      key,
    );
    expect(ok.status).toBe(200);
    const cases: Array<[string, string, string, string]> = [
      [
        "POST",
        `/v1/archives/${id}/ingest`,
        `{"artifacts":[{"id":"note:b","kind":"note","title":"B","content":"x","entities":[{"type":"person","name":"${LONE}"}]}]}`,
        "artifacts.0.entities.0.name",
      ],
      [
        "POST",
        `/v1/archives/${id}/ingest`,
        `{"artifacts":[{"id":"note:b","kind":"note","title":"B","content":"x","entities":[{"type":"person","name":"Ann","aliases":["${LONE}"]}]}]}`,
        "artifacts.0.entities.0.aliases.0",
      ],
      [
        "POST",
        `/v1/archives/${id}/ingest`,
        `{"artifacts":[{"id":"note:b","kind":"note","title":"B","content":"x","source":"${LONE}"}]}`,
        "artifacts.0.source",
      ],
      ["POST", `/v1/archives/${id}/review`, `{"op":"flag","chunk":"note:a","reason":"${LONE}"}`, "reason"],
      ["POST", `/v1/archives/${id}/deprecate`, `{"id":"note:a","reason":"${LONE}"}`, "reason"],
      [
        "POST",
        `/v1/archives/${id}/chunks/note%3Aa/annotations`,
        `{"key":"status","value":"x","reason":"${LONE}"}`,
        "reason",
      ],
    ];
    for (const [method, path, body, field] of cases) {
      const r = await api(method, path, body, key);
      expect(r.status, `${path} ${body}: ${JSON.stringify(r.body)}`).toBe(400);
      expect(r.body.error.field, body).toBe(field);
      expect(r.body.error.message, body).toMatch(/surrogate/);
    }
    expect((await api("GET", `/v1/archives/${id}/chunks/note%3Ab`, undefined, key)).status).toBe(404);
    const h = await api("GET", `/v1/archives/${id}/history?chunk=note%3Aa`, undefined, key);
    expect(h.body.deprecated_at).toBeNull();
  });
});
