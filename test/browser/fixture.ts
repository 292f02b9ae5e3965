/**
 * The explorer page in headless Chromium (playwright-core driving the system /usr/bin/chromium, or
 * CHROMIUM_PATH) against a throwaway local Worker (scripts/lib/server.ts, as the CLI tests start
 * theirs). Every request the page makes must go to that server; any console error or page error
 * fails the test. Archive A has an event subscription to a local HTTP server that always answers
 * 500 (the dead letter of explorer-dead-letter.full.test.ts). Screenshots (light and dark,
 * 1280x800 and 390x844) go to test-results/explorer/.
 */
import { mkdirSync } from "node:fs";
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { type Server, startServer } from "../../scripts/lib/server";
import { PaperGuruClient } from "../../src/client";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
];
const SHOTS = join(import.meta.dirname, "..", "..", "test-results", "explorer");
export const VIEWPORTS = { laptop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;
const QUERY = "Which PageRank damping do we use?";

let subscriber: HttpServer;
let browser: Browser;
const problems: string[] = [];
/** What the fixture set up (filled in by its beforeAll). */
export const fx = {
  server: undefined as unknown as Server,
  context: undefined as unknown as BrowserContext,
  /** A page signed in to nothing yet, shared by the file's tests in order. */
  page: undefined as unknown as Page,
  A: undefined as unknown as { id: string; key: string; readKey: string },
  B: undefined as unknown as { id: string; key: string },
  /** Attempts that reached the failing subscriber. */
  subscriberHits: 0,
};

/** Record console errors, page errors and any request that leaves the local server. */
function watch(p: Page): void {
  p.on("console", (m) => {
    if (m.type() === "error") problems.push(`console: ${m.text()}`);
  });
  p.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  p.on("response", (r) => {
    if (r.status() >= 400) problems.push(`HTTP ${r.status()} ${r.request().method()} ${r.url()}`);
  });
  p.on("request", (r) => {
    const u = r.url();
    if (!u.startsWith(`${fx.server.url}/`) && !u.startsWith("data:")) problems.push(`remote request: ${u}`);
  });
}

export async function newPage(viewport: { width: number; height: number } = VIEWPORTS.laptop): Promise<Page> {
  const p = await fx.context.newPage();
  await p.setViewportSize(viewport);
  watch(p);
  return p;
}

export async function signIn(p: Page, key: string): Promise<void> {
  await p.goto(`${fx.server.url}/`);
  await p.getByLabel("Key").fill(key);
  await p.getByRole("button", { name: "Open" }).click();
  await p.getByRole("tab", { name: "Ask and route" }).waitFor();
}

export async function ask(p: Page): Promise<void> {
  await p.getByRole("tab", { name: "Ask and route" }).click();
  await p.getByLabel("Query").fill(QUERY);
  await p.getByRole("button", { name: "Ask", exact: true }).click();
  await p.locator('li.card[data-chunk="decision:damping"]').waitFor();
}

/** Refresh an event list (every 5 s) until it shows a dead letter. */
export async function waitForDeadLetter(events: ReturnType<Page["locator"]>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while ((await events.locator("li.dead-letter").count()) === 0) {
    if (Date.now() > deadline)
      throw new Error(`no dead letter after ${ms / 1000} s (${fx.subscriberHits} attempts reached the subscriber)`);
    await new Promise((r) => setTimeout(r, 5000));
    await events.getByRole("button", { name: "Refresh" }).click();
  }
}

export async function shot(p: Page, name: string): Promise<void> {
  await p.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: false });
}

/** Register the fixture's hooks in the calling test file. */
export function useExplorer(): void {
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    // The subscriber that always fails: keeps the dead letter local.
    subscriber = createServer((req, res) => {
      fx.subscriberHits++;
      req.resume();
      res.writeHead(500, { "content-type": "text/plain" }).end("subscriber down");
    });
    await new Promise<void>((r) => subscriber.listen(0, "127.0.0.1", r));
    const port = (subscriber.address() as AddressInfo).port;
    fx.server = await startServer({ fresh: true, allowHosts: "127.0.0.1" });
    const admin = new PaperGuruClient(fx.server.url, fx.server.adminKey);
    const a = await admin.createArchive({ id: "explore-a", name: "Explorer A" });
    const b = await admin.createArchive({ id: "explore-b", name: "Explorer B" });
    const readKey = (await admin.createKey(a.archive.id, { scopes: ["read"], label: "read-only" })).secret;
    fx.A = { id: a.archive.id, key: a.key.secret, readKey };
    fx.B = { id: b.archive.id, key: b.key.secret };
    const rw = new PaperGuruClient(fx.server.url, fx.A.key);
    await rw.subscribe(fx.A.id, "agent", { url: `http://127.0.0.1:${port}/hook` });
    await rw.ingest(fx.A.id, {
      artifacts: [
        {
          id: "decision:damping",
          kind: "decision",
          title: "PageRank damping",
          content: "We use a PageRank damping of 0.85 for HippoRAG retrieval.",
          valid_from: "2024-01-01T00:00:00Z",
          edges: [{ type: "motivates", target: "note:hipporag" }],
        },
        {
          id: "note:hipporag",
          kind: "note",
          title: "HippoRAG notes",
          content: "HippoRAG runs Personalized PageRank over a knowledge graph of passages.",
          valid_from: "2024-02-01T00:00:00Z",
        },
        {
          id: "note:budget",
          kind: "note",
          title: "Token budget",
          content: "Cards stay within a token budget chosen by the agent.",
          valid_from: "2024-03-01T00:00:00Z",
          boundaries: ["topic:budget"],
        },
      ],
    });
    await rw.revise(fx.A.id, {
      id: "decision:damping",
      kind: "decision",
      title: "PageRank damping",
      content: "We moved the PageRank damping to 0.5 for HippoRAG retrieval.\nIt converges faster on small graphs.",
      valid_from: "2024-06-01T00:00:00Z",
      edges: [{ type: "motivates", target: "note:hipporag" }],
    });
    await new PaperGuruClient(fx.server.url, fx.B.key).ingest(fx.B.id, {
      artifacts: [{ id: "secret:b", kind: "note", title: "B only", content: "Archive B's PageRank damping is 0.7." }],
    });
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
    fx.context = await browser.newContext();
    fx.page = await newPage();
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    fx.server?.stop();
    await new Promise<void>((r) => (subscriber ? subscriber.close(() => r()) : r()));
  });

  afterEach(() => {
    const seen = problems.splice(0);
    expect(seen).toEqual([]);
  });
}
