/**
 * Reading a PDF's text layer with unpdf (https://github.com/unjs/unpdf: pdf.js built for serverless
 * runtimes, no canvas, no worker thread), into the positioned items src/core/formats/pdf.ts lays out.
 *
 * Bounds, checked before or while reading so no PDF holds the isolate long: at most MAX_PDF_BYTES
 * of file and MAX_PDF_PAGES pages (both 413 with the fix), and the text extraction stops with a
 * 413 when it has taken PDF_READ_MS of wall time. Failures are typed: not a PDF or a damaged one
 * (400, `validation`), encrypted (400 naming the password), no text layer (422 from the parser).
 */
import { getDocumentProxy } from "unpdf";
import { fail, ok, type Result } from "../../core/errors";
import type { PdfDocument, PdfInfo, PdfPage, PdfTextItem } from "../../core/formats/pdf";
import { noPause, type Pause } from "../../core/pace";

/** Largest PDF one request reads: 16 MiB (typical papers are 0.2-5 MB). */
export const MAX_PDF_BYTES = 16 * 1024 * 1024;
/**
 * Pages read per request. Reading the text layer cost 8.4-13 ms of CPU per page on the real PDFs
 * measured with scripts/pdf-timing.ts (Node 20, the 2-core development machine; 21 ms on the
 * 3-page fixture, whose first page loads the fonts; docs/ingest.md), so 80 pages stay near 1 s of
 * CPU, within the 2 s budget even at twice that cost.
 */
export const MAX_PDF_PAGES = 80;
/**
 * Wall time the extraction may take before it gives up (a PDF with pathological content streams),
 * checked between pages. In workerd the clock advances only across I/O, so there the page and
 * byte caps are what bound the work; this check binds in Node (tests, scripts).
 */
export const PDF_READ_MS = 8000;

/** PDF date "D:20240501120000Z" or "D:20240501120000+02'00'" -> epoch ms. */
export function pdfDate(s: unknown): number | undefined {
  if (typeof s !== "string") return undefined;
  const m = /^(?:D:)?(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?([Zz]|[+-]\d{2}'?\d{2}'?)?/.exec(s.trim());
  if (!m) return undefined;
  const [, y, mo = "01", d = "01", h = "00", mi = "00", se = "00", tz] = m;
  let iso = `${y}-${mo}-${d}T${h}:${mi}:${se}`;
  if (tz && tz.toUpperCase() !== "Z") {
    const t = tz.replace(/'/g, "");
    iso += `${t.slice(0, 3)}:${t.slice(3, 5)}`;
  } else iso += "Z";
  const t = Date.parse(iso);
  return Number.isFinite(t) && t > 0 ? t : undefined;
}

const str = (v: unknown) => (typeof v === "string" && v.trim() ? v : undefined);

function errorName(e: unknown): string {
  return e && typeof e === "object" && "name" in e && typeof e.name === "string" ? e.name : "";
}

/**
 * The text items and information dictionary of a PDF, or the failure that says why not. pdf.js
 * works through promises that never wait on I/O, so `pause` is taken after each page (8-13 ms of
 * CPU, docs/ingest.md): other requests run between pages.
 */
export async function readPdf(bytes: Uint8Array, pause: Pause = noPause): Promise<Result<PdfDocument>> {
  if (bytes.length > MAX_PDF_BYTES)
    return fail(
      "too_large",
      `this PDF is ${(bytes.length / 1048576).toFixed(1)} MiB; one request reads at most ${MAX_PDF_BYTES / 1048576} MiB`,
      "body",
      "split the PDF (for example `qpdf in.pdf --pages . 1-60 -- part1.pdf`) or compress its images",
    );
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, 1024));
  if (!head.includes("%PDF-"))
    return fail(
      "validation",
      "the body is not a PDF (no %PDF- header in its first 1,024 bytes)",
      "body",
      "send the PDF file itself as the body (curl --data-binary @paper.pdf)",
    );
  const started = Date.now();
  let doc: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    // pdf.js takes ownership of (detaches) the buffer it is given: pass a copy.
    doc = await getDocumentProxy(bytes.slice(), { verbosity: 0, stopAtErrors: false });
  } catch (e) {
    const name = errorName(e);
    if (name === "PasswordException")
      return fail(
        "validation",
        "this PDF is encrypted with a password",
        "body",
        "remove the password first (for example `qpdf --decrypt --password=... in.pdf out.pdf`)",
      );
    return fail(
      "validation",
      `this PDF cannot be read (${name || "damaged file"}: ${e instanceof Error ? e.message.slice(0, 200) : "unknown"})`,
      "body",
      "check the file opens in a PDF viewer; re-save or re-export it",
    );
  }
  try {
    if (doc.numPages > MAX_PDF_PAGES)
      return fail(
        "too_large",
        `this PDF has ${doc.numPages} pages; one request reads at most ${MAX_PDF_PAGES}`,
        "body",
        `split it into parts of at most ${MAX_PDF_PAGES} pages (for example \`qpdf in.pdf --pages . 1-${MAX_PDF_PAGES} -- part1.pdf\`)`,
      );
    let info: PdfInfo = {};
    try {
      const meta = await doc.getMetadata();
      const i = (meta.info ?? {}) as Record<string, unknown>;
      info = {
        title: str(i.Title),
        author: str(i.Author),
        subject: str(i.Subject),
        keywords: str(i.Keywords),
        created: pdfDate(i.CreationDate),
      };
    } catch {
      // A damaged information dictionary leaves the text readable; it is only metadata.
    }
    const pages: PdfPage[] = [];
    // The time limit counts reading, not the pauses (other requests' turns) between pages.
    let paused = 0;
    const givePause = async () => {
      const t = Date.now();
      await pause();
      paused += Date.now() - t;
    };
    await givePause();
    for (let n = 1; n <= doc.numPages; n++) {
      if (Date.now() - started - paused > PDF_READ_MS)
        return fail(
          "too_large",
          `reading this PDF's text took over ${PDF_READ_MS / 1000} s by page ${n} of ${doc.numPages}`,
          "body",
          "split the PDF into smaller parts and import them one by one",
        );
      const page = await doc.getPage(n);
      const [x0 = 0, y0 = 0, x1 = 612, y1 = 792] = page.view;
      const tc = await page.getTextContent();
      const items: PdfTextItem[] = [];
      for (const it of tc.items) {
        if (!("str" in it) || !it.str) continue;
        const [a = 1, b = 0, c = 0, d = 1, e = 0, f = 0] = it.transform as number[];
        const size = Math.hypot(c, d) || Math.hypot(a, b);
        items.push({
          str: it.str,
          x: e - x0,
          y: f - y0,
          w: it.width,
          size,
          upright: Math.abs(b) < 1e-3 * size && Math.abs(c) < 1e-3 * size && a > 0 && d > 0,
        });
      }
      pages.push({ width: x1 - x0, height: y1 - y0, items });
      page.cleanup();
      await givePause();
    }
    return ok({ pages, info });
  } catch (e) {
    return fail(
      "validation",
      `this PDF's content cannot be read (${errorName(e) || "damaged file"}: ${e instanceof Error ? e.message.slice(0, 200) : "unknown"})`,
      "body",
      "check the file opens in a PDF viewer; re-save or re-export it",
    );
  } finally {
    await doc.destroy().catch(() => undefined);
  }
}
