/**
 * The explorer page in headless Chromium (playwright-core driving the system /usr/bin/chromium)
 * against a throwaway local Worker (scripts/lib/server.ts, as the CLI tests start theirs). Every
 * request the page makes must go to that server; any console error or page error fails the test.
 *
 * The dead letter is real: archive A has an event subscription to a local HTTP server that always
 * answers 500, so the Worker's queue retries each event delivery 5 times (10 + 20 + 40 + 80 s of
 * backoff) and then marks it dead. The other tests run while that happens; the replay test waits
 * for it (and checks a read-only key sees no Replay next to it). Screenshots (light and dark, 1280x800 and 390x844) go to test-results/explorer/.
 */
import { mkdirSync } from "node:fs";
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type Server, startServer } from "../../scripts/lib/server";
import { PaperGuruClient, PaperGuruError } from "../../src/client";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
];
const SHOTS = join(import.meta.dirname, "..", "..", "test-results", "explorer");
const VIEWPORTS = { laptop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;
const QUERY = "Which PageRank damping do we use?";

let server: Server;
let subscriber: HttpServer;
let subscriberHits = 0;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const problems: string[] = [];
let A: { id: string; key: string; readKey: string };
let B: { id: string; key: string };

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
    if (!u.startsWith(`${server.url}/`) && !u.startsWith("data:")) problems.push(`remote request: ${u}`);
  });
}

async function newPage(viewport: { width: number; height: number } = VIEWPORTS.laptop): Promise<Page> {
  const p = await context.newPage();
  await p.setViewportSize(viewport);
  watch(p);
  return p;
}

async function signIn(p: Page, key: string): Promise<void> {
  await p.goto(`${server.url}/`);
  await p.getByLabel("Key").fill(key);
  await p.getByRole("button", { name: "Open" }).click();
  await p.getByRole("tab", { name: "Ask and route" }).waitFor();
}

async function ask(p: Page): Promise<void> {
  await p.getByRole("tab", { name: "Ask and route" }).click();
  await p.getByLabel("Query").fill(QUERY);
  await p.getByRole("button", { name: "Ask", exact: true }).click();
  await p.locator('li.card[data-chunk="decision:damping"]').waitFor();
}

/** Refresh an event list (every 5 s) until it shows a dead letter. */
async function waitForDeadLetter(events: ReturnType<Page["locator"]>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while ((await events.locator("li.dead-letter").count()) === 0) {
    if (Date.now() > deadline)
      throw new Error(`no dead letter after ${ms / 1000} s (${subscriberHits} attempts reached the subscriber)`);
    await new Promise((r) => setTimeout(r, 5000));
    await events.getByRole("button", { name: "Refresh" }).click();
  }
}

async function shot(p: Page, name: string): Promise<void> {
  await p.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: false });
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  // The subscriber that always fails: keeps the dead letter local.
  subscriber = createServer((req, res) => {
    subscriberHits++;
    req.resume();
    res.writeHead(500, { "content-type": "text/plain" }).end("subscriber down");
  });
  await new Promise<void>((r) => subscriber.listen(0, "127.0.0.1", r));
  const port = (subscriber.address() as AddressInfo).port;
  server = await startServer({ fresh: true, allowHosts: "127.0.0.1" });
  const admin = new PaperGuruClient(server.url, server.adminKey);
  const a = await admin.createArchive({ id: "explore-a", name: "Explorer A" });
  const b = await admin.createArchive({ id: "explore-b", name: "Explorer B" });
  const readKey = (await admin.createKey(a.archive.id, { scopes: ["read"], label: "read-only" })).secret;
  A = { id: a.archive.id, key: a.key.secret, readKey };
  B = { id: b.archive.id, key: b.key.secret };
  const rw = new PaperGuruClient(server.url, A.key);
  await rw.subscribe(A.id, "agent", { url: `http://127.0.0.1:${port}/hook` });
  await rw.ingest(A.id, {
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
  await rw.revise(A.id, {
    id: "decision:damping",
    kind: "decision",
    title: "PageRank damping",
    content: "We moved the PageRank damping to 0.5 for HippoRAG retrieval.\nIt converges faster on small graphs.",
    valid_from: "2024-06-01T00:00:00Z",
    edges: [{ type: "motivates", target: "note:hipporag" }],
  });
  await new PaperGuruClient(server.url, B.key).ingest(B.id, {
    artifacts: [{ id: "secret:b", kind: "note", title: "B only", content: "Archive B's PageRank damping is 0.7." }],
  });
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
  context = await browser.newContext();
  page = await newPage();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  server?.stop();
  await new Promise<void>((r) => (subscriber ? subscriber.close(() => r()) : r()));
});

afterEach(() => {
  const seen = problems.splice(0);
  expect(seen).toEqual([]);
});

describe("explorer", () => {
  it("serves / and /explore with a strict Content-Security-Policy and its own assets", async () => {
    for (const path of ["/", "/explore"]) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status).toBe(200);
      const csp = res.headers.get("content-security-policy") ?? "";
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("style-src 'self'");
      expect(csp).toContain("connect-src 'self'");
      expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:|\*/);
      const html = await res.text();
      // No inline script: the one script is same-origin, with its SHA-256 as integrity.
      expect(html).not.toMatch(/<script>/);
      expect(html).toMatch(/<script defer src="\/explore\/app\.js\?v=[0-9a-f]{16}" integrity="sha256-/);
      expect(html).not.toMatch(/https?:\/\//);
    }
    const js = await fetch(`${server.url}/explore/app.js`);
    expect(js.headers.get("content-type")).toMatch(/^text\/javascript/);
    expect((await js.text()).length).toBeGreaterThan(10_000);
  });

  it("signs in with a key kept in sessionStorage only, runs a query and shows cards and the route", async () => {
    await signIn(page, A.key);
    await shot(page, "ask-empty-light-laptop");
    expect(page.url()).not.toContain(A.key);
    expect(await page.evaluate("document.cookie")).toBe("");
    expect(await page.evaluate("JSON.stringify(localStorage)")).not.toContain(A.key);
    expect(await page.evaluate('sessionStorage.getItem("paperguru.explorer.key")')).toBe(A.key);
    await ask(page);
    const card = page.locator('li.card[data-chunk="decision:damping"]');
    await expect(card.getAttribute("data-version")).resolves.toBe("2");
    expect(await card.locator("button.anchor").count()).toBeGreaterThan(0);
    // The route: seeds and the graph canvas.
    await page.getByRole("heading", { name: "Route" }).waitFor();
    expect(await page.locator(".graph canvas").count()).toBeGreaterThan(0);
    expect(await page.getByText(/Seeds \(\d+\)/).textContent()).not.toBe("Seeds (0)");
  });

  it("opens an anchor: the exact version's content with the span highlighted, verified", async () => {
    const card = page.locator('li.card[data-chunk="decision:damping"]');
    await card.locator("button.anchor").first().click();
    const verdict = page.getByTestId("verdict");
    await verdict.waitFor();
    expect(await verdict.textContent()).toMatch(
      /^Verified: the snippet is exactly the text at \[\d+, \d+\) of version 2\./,
    );
    const marked = await page.locator(".anchor-view mark").textContent();
    expect(marked?.length).toBeGreaterThan(0);
    expect(await page.locator(".anchor-view pre").textContent()).toContain(marked ?? "\u0000");
  });

  it("moving as_of with the keyboard switches the card to the version valid then", async () => {
    const slider = page.getByRole("slider");
    await slider.focus();
    await page.keyboard.press("Home"); // the earliest change: 2024-01-01, when only v1 existed
    const card = page.locator('li.card[data-chunk="decision:damping"][data-version="1"]');
    await card.waitFor();
    expect(await card.locator(".badge.changed").textContent()).toBe("was v2");
    // Notes valid only later disappear from the answer.
    expect(await page.locator('li.card[data-chunk="note:budget"]').count()).toBe(0);
    await page.keyboard.press("End"); // back to now
    await page.locator('li.card[data-chunk="decision:damping"][data-version="2"]').waitFor();
  });

  it("opens a chunk's history: versions on a timeline, a diff, neighbours and an entity", async () => {
    await page.getByRole("tab", { name: "Browse" }).click();
    await page.getByRole("button", { name: "decision:damping", exact: true }).click();
    const timeline = page.getByRole("list", { name: "Version timeline" });
    await timeline.waitFor();
    expect(await timeline.locator("li").count()).toBe(2);
    await page.getByRole("button", { name: "Diff v1 → v2" }).click();
    const diff = page.locator(".diff");
    await diff.waitFor();
    expect(await diff.locator(".ins").textContent()).toContain("+ We moved the PageRank damping to 0.5");
    expect(await diff.locator(".del").textContent()).toContain("0.85");
    await page.getByRole("heading", { name: "Neighbours" }).waitFor();
    await page.locator(".panel li", { hasText: "note:hipporag" }).first().waitFor();
    // Filters and paging: kind=note lists the two notes only.
    await page.getByLabel("Kind").selectOption("note");
    await page.getByRole("button", { name: "Filter" }).click();
    await expect.poll(() => page.locator(".chunk-table tbody tr").count()).toBe(2);
    await shot(page, "browse-light-laptop");
  });

  it("another archive's data is unreachable with this key", async () => {
    // The page offers only the key's own archive and never shows B's chunks.
    expect(await page.locator("select[name=archive]").count()).toBe(0);
    expect(await page.getByTestId("scopes").textContent()).toBe("read + write");
    const rw = new PaperGuruClient(server.url, A.key);
    for (const call of [
      () => rw.chunks(B.id),
      () => rw.chunk(B.id, "secret:b"),
      () => rw.context(B.id, { query: "damping" }),
      () => rw.deliveries(B.id, "x"),
    ]) {
      const err = await call().then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(PaperGuruError);
      expect((err as PaperGuruError).status).toBe(403);
    }
    const me = await rw.whoami();
    expect(me.archives.map((a) => a.id)).toEqual([A.id]);
    // The same query in A never cites B's chunk.
    await page.getByRole("tab", { name: "Ask and route" }).click();
    await page.getByLabel("Query").fill("Archive B damping 0.7");
    await page.getByRole("button", { name: "Ask", exact: true }).click();
    await page.getByRole("heading", { name: /^Cards/ }).waitFor();
    expect(await page.locator('li.card[data-chunk="secret:b"]').count()).toBe(0);
    expect(await page.content()).not.toContain("secret:b");
  });

  it("saves screenshots of each screen, light and dark, laptop and phone", async () => {
    for (const [size, viewport] of Object.entries(VIEWPORTS))
      for (const theme of ["light", "dark"] as const) {
        const p = await newPage(viewport);
        await p.emulateMedia({ colorScheme: theme });
        await p.goto(`${server.url}/`);
        await shot(p, `signin-${theme}-${size}`);
        await p.getByLabel("Key").fill(A.key);
        await p.getByRole("button", { name: "Open" }).click();
        await ask(p);
        // The toggle follows the system theme until chosen: check it switches the page.
        const bg = () => p.evaluate("getComputedStyle(document.body).backgroundColor");
        const before = await bg();
        await p.getByRole("button", { name: /Colour theme/ }).click(); // auto -> light
        await p.getByRole("button", { name: /Colour theme/ }).click(); // light -> dark
        await expect.poll(bg).toBe("rgb(20, 23, 26)");
        await p.getByRole("button", { name: /Colour theme/ }).click(); // dark -> auto
        await expect.poll(bg).toBe(before);
        await shot(p, `ask-${theme}-${size}`);
        await p.locator("button.anchor").first().click();
        await p.getByTestId("verdict").waitFor();
        await shot(p, `anchor-${theme}-${size}`);
        await p.locator(".graph").scrollIntoViewIfNeeded();
        await shot(p, `route-${theme}-${size}`);
        await p.getByRole("tab", { name: "Browse" }).click();
        await p.getByRole("button", { name: "decision:damping", exact: true }).click();
        await p.getByRole("button", { name: "Diff v1 → v2" }).click();
        await p.locator(".diff").waitFor();
        await p.locator(".diff").scrollIntoViewIfNeeded();
        await shot(p, `browse-${theme}-${size}`);
        await p.getByRole("tab", { name: "Operate" }).click();
        await p.getByRole("heading", { name: "Event deliveries" }).waitFor();
        await p.locator("[data-subscription=agent]").waitFor();
        await shot(p, `operate-${theme}-${size}`);
        await p.close();
      }
  });

  it("a read-only key sees its scope and no write controls", async () => {
    const p = await newPage();
    await signIn(p, A.readKey);
    expect(await p.getByTestId("scopes").textContent()).toBe("read");
    await p.getByRole("tab", { name: "Operate" }).click();
    await p.locator("[data-subscription=agent]").waitFor();
    expect(await p.locator("button.write").count()).toBe(0);
    await p.close();
  });

  it("shows a dead letter and replays it", async () => {
    await page.getByRole("tab", { name: "Operate" }).click();
    const events = page.locator("[data-subscription=agent]");
    await events.waitFor();
    await events.getByLabel("dead letters only").check();
    // The fifth failed attempt is ~150 s after the ingest (queue backoff 10 + 20 + 40 + 80 s).
    await waitForDeadLetter(events, 220_000);
    expect(subscriberHits).toBeGreaterThanOrEqual(5);
    const dead = events.locator("li.dead-letter").first();
    expect(await dead.textContent()).toMatch(/5 attempts · HTTP 500/);
    await shot(page, "operate-dead-letter-light-laptop");
    // The same dead letter seen with the read-only key: no Replay button.
    const ro = await newPage();
    await signIn(ro, A.readKey);
    await ro.getByRole("tab", { name: "Operate" }).click();
    const roEvents = ro.locator("[data-subscription=agent]");
    await roEvents.waitFor();
    await roEvents.getByLabel("dead letters only").check();
    await roEvents.locator("li.dead-letter").first().waitFor();
    expect(await ro.locator("button.write").count()).toBe(0);
    expect(await ro.getByRole("button", { name: "Replay" }).count()).toBe(0);
    await shot(ro, "operate-read-only-light-laptop");
    await ro.close();
    const id = await dead.getAttribute("data-event");
    await dead.getByRole("button", { name: "Replay" }).click();
    await events
      .getByRole("status")
      .filter({ hasText: `Redelivering ${id}: pending.` })
      .waitFor();
    const rw = new PaperGuruClient(server.url, A.key);
    const after = (await rw.events(A.id, "agent")).events.find((e) => e.id === id);
    expect(after?.status).not.toBe("dead");
  }, 240_000);
});
