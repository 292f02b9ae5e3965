/**
 * The explorer's route graph on a real route: ingests the HotpotQA corpus of the test data
 * (multihop/hotpotqa_train_corpus.json, 994 passages, as notes) into a throwaway local server, asks
 * the page a question (the first of hotpotqa_train.json, or `--question "…"`), shows every chunk
 * at full width and prints the route's size, the chunks shown and the layout time; screenshots go
 * to test-results/explorer/real-route-{all,top40}.png.
 *
 *   npx tsx scripts/explore-route-graph.ts --data ../shared/testdata
 *
 * Skips with a message when the data folder or Chromium (/usr/bin/chromium or CHROMIUM_PATH) is
 * missing.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { PaperGuruClient } from "../src/client";
import { startServer } from "./lib/server";

const argOf = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const DATA = argOf("data") ?? "../shared/testdata";
const CORPUS = join(DATA, "multihop", "hotpotqa_train_corpus.json");
const QUESTIONS = join(DATA, "multihop", "hotpotqa_train.json");
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const SHOTS = join(import.meta.dirname, "..", "test-results", "explorer");

if (!existsSync(CORPUS) || !existsSync(CHROMIUM)) {
  console.log(`skipped: needs ${CORPUS} (--data <testdata folder>) and Chromium at ${CHROMIUM}`);
  process.exit(0);
}
const corpus = JSON.parse(readFileSync(CORPUS, "utf8")) as Record<string, string>;
const questions = JSON.parse(readFileSync(QUESTIONS, "utf8")) as Array<{ question: string }>;
const question = argOf("question") ?? questions[0]?.question ?? "";
mkdirSync(SHOTS, { recursive: true });

const server = await startServer({ fresh: true });
try {
  const admin = new PaperGuruClient(server.url, server.adminKey);
  const created = await admin.createArchive({ id: "hotpot", name: "HotpotQA corpus" });
  const key = created.key.secret;
  const client = new PaperGuruClient(server.url, key);
  const passages = Object.entries(corpus);
  for (let i = 0; i < passages.length; i += 100)
    await client.ingest("hotpot", {
      artifacts: passages
        .slice(i, i + 100)
        .map(([title, text], j) => ({ id: `p:${i + j}`, kind: "note" as const, title, content: `${title}. ${text}` })),
    });
  // The page asks /route with limit 32, as here.
  const route = await client.route("hotpot", { query: question, limit: 32, include_trace: true });
  const t = route.trace;
  console.log(`question: ${question}`);
  console.log(
    `route: ${route.candidates.length} candidates, ${t?.seeds.length} seeds, ${t?.router_steps.length} steps, ${t?.diffusion.mass.length} chunks with mass, ${t?.mentions.length} mentions`,
  );
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox"] });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on("console", (m) => {
      if (m.type() === "error") console.log(`console error: ${m.text()}`);
    });
    await page.goto(`${server.url}/`);
    await page.getByLabel("Key").fill(key);
    await page.getByRole("button", { name: "Open" }).click();
    await page.getByLabel("Query").fill(question);
    await page.getByRole("button", { name: "Ask", exact: true }).click();
    await page.locator(".graph canvas").first().waitFor();
    await page.getByRole("button", { name: "Full width" }).click();
    for (const [cap, name] of [
      ["Infinity", "all"],
      ["40", "top40"],
    ] as const) {
      await page.locator("select[name=cap]").selectOption(cap);
      await page.waitForTimeout(1000);
      const shown = await page.getByTestId("graph-count").textContent();
      const ms = await page.locator(".graph").getAttribute("data-layout-ms");
      const zoom = await page
        .locator(".graph")
        .evaluate((el) => (el as unknown as { cy?: { zoom(): number } }).cy?.zoom());
      console.log(`${name}: ${shown}; laid out in ${ms} ms; fitted zoom ${zoom?.toFixed(2)}`);
      await page.locator(".graph").screenshot({ path: join(SHOTS, `real-route-${name}.png`) });
    }
  } finally {
    await browser.close();
  }
} finally {
  server.stop();
}
