/**
 * Time the PDF import's two steps on real files: reading the text layer (unpdf / pdf.js, per page)
 * and planning chunks (src/core/formats/pdf.ts). Not part of `npm test`.
 *
 *   npx tsx scripts/pdf-timing.ts [file.pdf ...]     (default: the generated test fixture)
 *
 * Prints per file: pages, bytes, read time (wall, and CPU of this process in total and per page; the
 * CPU figure is the one to compare with the Worker's budget on a shared machine), plan ms, chunks by kind, and the
 * first section titles, so the layout can be checked by eye.
 */
import { readFileSync } from "node:fs";
import { readPdf } from "../src/app/intake/pdf";
import { parsePdf } from "../src/core/formats/pdf";
import { makePaperPdf } from "../test/fixtures/pdf-paper";

async function one(name: string, bytes: Uint8Array) {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const doc = await readPdf(bytes);
  const t1 = performance.now();
  const c1 = process.cpuUsage(c0);
  const cpuMs = (c1.user + c1.system) / 1000;
  if (!doc.ok) {
    console.log(`${name}: ${doc.error.kind}: ${doc.error.message}`);
    return;
  }
  const plan = parsePdf(doc.value, { source: name });
  const t2 = performance.now();
  const pages = doc.value.pages.length;
  if (!plan.ok) {
    console.log(`${name}: ${pages} pages, ${plan.error.kind}: ${plan.error.message}`);
    return;
  }
  const kinds = new Map<string, number>();
  for (const a of plan.value.artifacts) kinds.set(a.kind, (kinds.get(a.kind) ?? 0) + 1);
  console.log(
    `${name}: ${pages} pages, ${(bytes.length / 1024).toFixed(0)} KiB; read ${(t1 - t0).toFixed(0)} ms wall, ${cpuMs.toFixed(0)} ms CPU (${(cpuMs / pages).toFixed(1)} ms CPU/page), plan ${(t2 - t1).toFixed(1)} ms; ${[...kinds].map(([k, n]) => `${n} ${k}`).join(", ")}`,
  );
  for (const a of plan.value.artifacts.slice(0, 12))
    console.log(
      `  ${a.kind.padEnd(8)} ${a.title.slice(0, 90)}  [${(a.boundaries ?? []).filter((b) => b.startsWith("page")).join(" ")}]`,
    );
}

const files = process.argv.slice(2);
if (!files.length) {
  const g = await makePaperPdf();
  // Warm-up run (module load, JIT), then the measured one.
  await one("fixture (warm-up)", g.bytes);
  await one("fixture", g.bytes);
} else for (const f of files) await one(f, new Uint8Array(readFileSync(f)));
