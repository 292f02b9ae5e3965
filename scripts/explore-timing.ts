/**
 * How long the explorer's main screens take to render in headless Chromium on a 10,000-chunk
 * synthetic archive ingested through the public API into a throwaway local server:
 * `npx tsx scripts/explore-timing.ts` (`--chunks N` to change the size; PAPERGURU_URL is ignored,
 * the archive always goes to a fresh server). Prints one line per screen: the median and the
 * maximum of `--runs` (default 5) measurements, from the click (or navigation) to the screen's
 * content being in the DOM. Writes bench/results/explore-latest.json (`--out <file>` elsewhere) with
 * the date, commit, machine and the explorer's built sizes, from which `npm run report` writes the
 * README's explorer numbers.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { chromium } from "playwright-core";
import { PaperGuruClient } from "../src/client";
import { machine } from "./lib/results";
import { harnessFetch, sourceState, startServer } from "./lib/server";
import { rng } from "./lib/synthetic";

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const N = arg("chunks", 10_000);
const RUNS = arg("runs", 5);
const OUT = (() => {
  const i = process.argv.indexOf("--out");
  return i >= 0 ? (process.argv[i + 1] as string) : "bench/results/explore-latest.json";
})();
const WORDS = (
  "graph memory retrieval damping pagerank entity version anchor budget card route seed diffusion router " +
  "expert semantic lexical recency temporal lifecycle deprecation alias merge rename citation paper section " +
  "code benchmark decision note dataset technique design element figure table equation agent context"
).split(" ");

async function timed(action: () => Promise<unknown>, ready: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await action();
  await ready();
  return performance.now() - t;
}

/** Poll a condition every 10 ms (the page's CSP refuses the eval that string predicates need). */
async function until(cond: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 10));
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

async function main() {
  const source = sourceState();
  const server = await startServer({ fresh: true });
  const errors: string[] = [];
  try {
    const admin = new PaperGuruClient(server.url, server.adminKey, { fetch: harnessFetch });
    const created = await admin.createArchive({ id: "timing", name: `timing ${N}` });
    const pg = admin.withKey(created.key.secret);
    const r = rng(42);
    const nEnt = Math.max(20, Math.floor(N / 4));
    const t0 = performance.now();
    for (let start = 0; start < N; start += 200) {
      const artifacts = [];
      for (let i = start; i < Math.min(N, start + 200); i++) {
        const words = Array.from({ length: 60 }, () => WORDS[Math.floor(r() * WORDS.length)]).join(" ");
        const e = [Math.floor(nEnt / (1 + r() * nEnt)), Math.floor(nEnt / (1 + r() * nEnt))];
        const edges = i > 0 ? [{ type: "cites" as const, target: `p:${Math.floor(r() * i)}` }] : [];
        artifacts.push({
          id: `p:${i}`,
          kind: (i % 5 === 0 ? "note" : "paper") as "note" | "paper",
          title: `Paper ${i} on ${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]}`,
          content: `${words}. Method ${e[0]} is compared with Method ${e[1]}.`,
          entities: [...new Set(e)].map((x) => ({ type: "method" as const, id: `method:m${x}`, name: `Method ${x}` })),
          edges,
          valid_from: new Date(Date.parse("2020-01-01") + i * 3_600_000).toISOString(),
        });
      }
      await pg.ingest("timing", { artifacts });
      process.stderr.write(`\ringested ${Math.min(N, start + 200)} / ${N}`);
    }
    process.stderr.write("\n");
    const ingestMs = performance.now() - t0;
    console.log(`ingest: ${N} chunks in ${(ingestMs / 1000).toFixed(1)} s through POST /ingest`);
    // A revision, so the chunk screen has two versions and a diff.
    await pg.revise("timing", {
      id: "p:1",
      kind: "paper",
      title: "Paper 1 revised",
      content: "A revised abstract about graph memory and damping.",
    });

    const browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      headless: true,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--no-first-run",
      ],
    });
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.on("pageerror", (e) => errors.push(e.message));
    // The explorer's own errors (not the favicon request of the /healthz page used to reset storage).
    page.on("console", (m) => m.type() === "error" && !page.url().endsWith("/healthz") && errors.push(m.text()));
    const results: Record<string, number[]> = {
      "sign in (key -> tabs)": [],
      "ask (query -> cards + route graph)": [],
      "as_of slider step (-> cards)": [],
      "anchor (click -> verified span)": [],
      "browse (tab -> 25 chunks)": [],
      "chunk history (click -> versions + neighbours)": [],
      "operate (tab -> counts, log, events)": [],
    };
    const add = (k: string, v: number) => results[k]?.push(v);
    for (let run = 0; run < RUNS; run++) {
      process.stderr.write(`run ${run + 1} / ${RUNS}\n`);
      // Forget the previous run's key on a same-origin page without the app, then load the explorer.
      await page.goto(`${server.url}/healthz`);
      await page.evaluate("sessionStorage.clear()");
      await page.goto(`${server.url}/`);
      await page.getByLabel("Key").fill(created.key.secret);
      add(
        "sign in (key -> tabs)",
        await timed(
          () => page.getByRole("button", { name: "Open" }).click(),
          () => page.getByRole("tab", { name: "Ask and route" }).waitFor(),
        ),
      );
      await page.getByLabel("Query").fill(`How is Method ${run + 1} used for graph memory?`);
      add(
        "ask (query -> cards + route graph)",
        await timed(
          () => page.getByRole("button", { name: "Ask", exact: true }).click(),
          async () => {
            await page.locator("li.card").first().waitFor();
            await page.locator(".graph canvas").first().waitFor();
          },
        ),
      );
      const slider = page.getByRole("slider");
      await slider.focus();
      const before = await page.locator("#cards-h").textContent();
      add(
        "as_of slider step (-> cards)",
        await timed(
          () => page.keyboard.press("PageDown"),
          () => until(async () => (await page.locator("#cards-h").textContent()) !== before),
        ),
      );
      await page.keyboard.press("End");
      await page.locator("li.card").first().waitFor();
      add(
        "anchor (click -> verified span)",
        await timed(
          () => page.locator("button.anchor").first().click(),
          () => page.getByTestId("verdict").waitFor(),
        ),
      );
      add(
        "browse (tab -> 25 chunks)",
        await timed(
          () => page.getByRole("tab", { name: "Browse" }).click(),
          () => until(async () => (await page.locator(".chunk-table tbody tr").count()) === 25),
        ),
      );
      add(
        "chunk history (click -> versions + neighbours)",
        await timed(
          () => page.getByRole("button", { name: "p:1", exact: true }).click(),
          async () => {
            await page.getByRole("list", { name: "Version timeline" }).waitFor();
            await page.getByRole("heading", { name: "Neighbours" }).waitFor();
            await until(async () => (await page.getByRole("status").filter({ hasText: "Loading…" }).count()) === 0);
          },
        ),
      );
      add(
        "operate (tab -> counts, log, events)",
        await timed(
          () => page.getByRole("tab", { name: "Operate" }).click(),
          async () => {
            await page.locator("#counts-h").waitFor();
            await until(async () => (await page.getByRole("status").filter({ hasText: "Loading…" }).count()) === 0);
          },
        ),
      );
    }
    await browser.close();
    console.log(`explorer screens on ${N} chunks (Chromium headless, 1280x800, ${RUNS} runs; median / max ms):`);
    for (const [k, xs] of Object.entries(results))
      console.log(
        `  ${k.padEnd(48)} ${median(xs).toFixed(0).padStart(6)} / ${Math.max(...xs)
          .toFixed(0)
          .padStart(6)}`,
      );
    if (errors.length) console.log(`page errors: ${errors.join(" | ")}`);
    const sizesFile = "build/explorer/sizes.json";
    const sizes = existsSync(sizesFile) ? JSON.parse(readFileSync(sizesFile, "utf8")) : null;
    mkdirSync(dirname(OUT), { recursive: true });
    writeFileSync(
      OUT,
      `${JSON.stringify(
        {
          date: new Date().toISOString(),
          commit: source.commit,
          source,
          machine: machine(),
          chunks: N,
          runs: RUNS,
          viewport: "1280x800",
          ingestMs,
          screens: Object.entries(results).map(([screen, xs]) => ({
            screen,
            medianMs: median(xs),
            maxMs: Math.max(...xs),
          })),
          pageErrors: errors,
          sizes,
        },
        null,
        2,
      )}\n`,
    );
    console.log(`wrote ${OUT}`);
  } catch (e) {
    if (errors.length) console.log(`page errors: ${errors.join(" | ")}`);
    throw e;
  } finally {
    server.stop();
  }
}

await main();
