/**
 * PDF import through the Worker (unpdf under workerd): a generated two-column paper becomes a
 * paper, sections and a figure; locate answers the page of passages on pages 1, 2 and 3; coverage
 * reports pages; PDFs without text, damaged ones and oversized ones get a clear 4xx.
 */
import { PDFDocument, StandardFonts } from "pdf-lib";
import { describe, expect, it } from "vitest";
import { MARKERS, makePaperPdf, makeScannedPdf } from "../fixtures/pdf-paper";
import { api, newArchive } from "./helpers";
import { WORKER } from "./worker";

const PID = "paper:routing-memory-for-long-horizon-research-agents";

async function importPdf(archive: string, key: string, body: Uint8Array, extra = "") {
  const res = await WORKER.fetch(
    `http://paperguru.test/v1/archives/${archive}/import?format=pdf&name=paper.pdf${extra}`,
    {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/pdf" },
      body,
    },
  );
  // biome-ignore lint/suspicious/noExplicitAny: structural checks
  return { status: res.status, body: (await res.json()) as any };
}

describe("POST /import?format=pdf", () => {
  it("imports the paper, answers pages from locate and coverage, and re-importing creates nothing", async () => {
    const { id, key } = await newArchive("pdf");
    const g = await makePaperPdf();
    const imp = await importPdf(id, key, g.bytes);
    expect(imp.status, JSON.stringify(imp.body)).toBe(200);
    // Six chunks and the passages of the sections over 1,500 characters (`<section>#p<n>`, records).
    const chunks = await api("GET", `/v1/archives/${id}/chunks?prefix=${encodeURIComponent(PID)}`, undefined, key);
    const passageIds = chunks.body.chunks.map((c: { id: string }) => c.id).filter((x: string) => /#p\d+$/.test(x));
    expect(passageIds.length).toBeGreaterThan(0);
    expect(imp.body.counts.created).toBe(6 + passageIds.length);
    expect(
      chunks.body.chunks
        .map((c: { id: string }) => c.id)
        .filter((x: string) => !/#p\d+$/.test(x))
        .sort(),
    ).toEqual(
      [
        PID,
        `${PID}#fig1`,
        `${PID}#s1-1-introduction`,
        `${PID}#s2-2-method`,
        `${PID}#s3-3-results`,
        `${PID}#s4-4-conclusion`,
      ].sort(),
    );

    for (const [k, phrase] of Object.entries(MARKERS)) {
      const r = await api(
        "POST",
        `/v1/archives/${id}/locate`,
        { paper: PID, query: phrase, limit: 3, snippets: 1 },
        key,
      );
      expect(r.status).toBe(200);
      const top = r.body.items[0];
      expect(top.snippets[0].text).toContain(phrase);
      expect(top.snippets[0].page, phrase).toBe(g.pages[k as keyof typeof MARKERS]);
      expect(top.page, phrase).toBe(g.pages[k as keyof typeof MARKERS]);
    }
    expect(Object.values(g.pages)).toEqual([1, 2, 3]);

    const fig = await api(
      "POST",
      `/v1/archives/${id}/locate`,
      { paper: PID, query: "recall against pool size routers", limit: 3 },
      key,
    );
    const el = fig.body.items.find((x: { chunk: string }) => x.chunk === `${PID}#fig1`);
    expect(el).toMatchObject({
      kind: "element",
      element_type: "figure",
      page: 2,
      discussed_in: [`${PID}#s2-2-method`],
    });

    const cov = await api(
      "GET",
      `/v1/archives/${id}/coverage?paper=${encodeURIComponent(PID)}&rule=referenced`,
      undefined,
      key,
    );
    expect(cov.status).toBe(200);
    expect(cov.body.pages).toBe(3);
    expect(cov.body.types.figure).toMatchObject({ total: 1, linked: 1 });
    const unlinked = cov.body.types.section.unlinked as Array<{ chunk: string; page: number | null }>;
    expect(Object.fromEntries(unlinked.map((u) => [u.chunk.slice(PID.length), u.page]))).toEqual({
      "#s1-1-introduction": 1,
      "#s3-3-results": 2,
      "#s4-4-conclusion": 3,
    });

    const again = await importPdf(id, key, g.bytes);
    expect(again.status).toBe(200);
    expect(again.body.counts.created).toBe(0);
  });

  it("pages survive an export and a replay of the dump into another archive", async () => {
    const src = await newArchive("pdf");
    const g = await makePaperPdf();
    expect((await importPdf(src.id, src.key, g.bytes)).status).toBe(200);
    const dump = await WORKER.fetch(`http://paperguru.test/v1/archives/${src.id}/export?format=json`, {
      headers: { authorization: `Bearer ${src.key}` },
    });
    expect(dump.status).toBe(200);
    const dst = await newArchive("pdf");
    const replay = await WORKER.fetch(
      `http://paperguru.test/v1/archives/${dst.id}/import?format=archive&name=dump.json`,
      {
        method: "POST",
        headers: { authorization: `Bearer ${dst.key}`, "content-type": "text/plain" },
        body: await dump.text(),
      },
    );
    expect(replay.status).toBe(200);
    const r = await api(
      "POST",
      `/v1/archives/${dst.id}/locate`,
      { paper: PID, query: MARKERS.orchard, limit: 1, snippets: 1 },
      dst.key,
    );
    expect(r.body.items[0]).toMatchObject({ page: 3, snippets: [{ page: 3 }] });
  });

  it("the caller's valid_from replaces the PDF's creation date", async () => {
    const { id, key } = await newArchive("pdf");
    const imp = await importPdf(id, key, (await makePaperPdf()).bytes, "&valid_from=2025-01-02T00:00:00Z");
    expect(imp.status).toBe(200);
    const c = await api("GET", `/v1/archives/${id}/chunks/${encodeURIComponent(PID)}`, undefined, key);
    expect(c.body.versions?.[0]?.valid_from ?? c.body.valid_from).toBe("2025-01-02T00:00:00.000Z");
  });

  it("a scan without text is a 422 naming OCR; damaged, empty and oversized PDFs are 4xx", async () => {
    const { id, key } = await newArchive("pdf");
    const scan = await importPdf(id, key, await makeScannedPdf());
    expect(scan.status).toBe(422);
    expect(scan.body.error).toMatchObject({ type: "unprocessable", field: "body" });
    expect(scan.body.error.message).toMatch(/^no text layer/);
    expect(scan.body.error.hint).toMatch(/run OCR first/);

    const damaged = await importPdf(id, key, new TextEncoder().encode(`%PDF-1.4\n${"xx ".repeat(100)}`));
    expect(damaged.status).toBe(400);
    expect(damaged.body.error.message).toMatch(/cannot be read/);

    const text = await importPdf(id, key, new TextEncoder().encode("@article{x, title={Not a PDF}}"));
    expect(text.status).toBe(400);
    expect(text.body.error.message).toMatch(/not a PDF/);

    const empty = await importPdf(id, key, new Uint8Array(0));
    expect(empty.status).toBe(400);

    const d = await PDFDocument.create();
    const font = await d.embedFont(StandardFonts.Helvetica);
    for (let i = 0; i < 81; i++) d.addPage([200, 200]).drawText(`page ${i + 1}`, { x: 20, y: 100, font, size: 10 });
    const long = await importPdf(id, key, await d.save());
    expect(long.status).toBe(413);
    expect(long.body.error.hint).toMatch(/split it/);
    const log = await api("GET", `/v1/archives/${id}/ingest-log`, undefined, key);
    expect(log.body.entries).toEqual([]);
  });
});
