/**
 * The explorer page in a browser: pages, keys, anchors, history, isolation, screenshots and a
 * read-only key (the fixture is in ./fixture.ts; the real-backoff dead letter is in
 * explorer-dead-letter.full.test.ts, run by `npm run test:full`).
 */
import { describe, expect, it } from "vitest";
import { PaperGuruClient, PaperGuruError } from "../../src/client";
import { ask, fx, newPage, shot, signIn, useExplorer, VIEWPORTS } from "./fixture";

useExplorer();

describe("explorer", () => {
  it("serves / and /explore with a strict Content-Security-Policy and its own assets", async () => {
    for (const path of ["/", "/explore"]) {
      const res = await fetch(`${fx.server.url}${path}`);
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
    const js = await fetch(`${fx.server.url}/explore/app.js`);
    expect(js.headers.get("content-type")).toMatch(/^text\/javascript/);
    expect((await js.text()).length).toBeGreaterThan(10_000);
  });

  it("signs in with a key kept in sessionStorage only, runs a query and shows cards and the route", async () => {
    await signIn(fx.page, fx.A.key);
    await shot(fx.page, "ask-empty-light-laptop");
    expect(fx.page.url()).not.toContain(fx.A.key);
    expect(await fx.page.evaluate("document.cookie")).toBe("");
    expect(await fx.page.evaluate("JSON.stringify(localStorage)")).not.toContain(fx.A.key);
    expect(await fx.page.evaluate('sessionStorage.getItem("paperguru.explorer.key")')).toBe(fx.A.key);
    await ask(fx.page);
    const card = fx.page.locator('li.card[data-chunk="decision:damping"]');
    await expect(card.getAttribute("data-version")).resolves.toBe("2");
    expect(await card.locator("button.anchor").count()).toBeGreaterThan(0);
    // The route: seeds and the graph canvas.
    await fx.page.getByRole("heading", { name: "Route" }).waitFor();
    expect(await fx.page.locator(".graph canvas").count()).toBeGreaterThan(0);
    expect(await fx.page.getByText(/Seeds \(\d+\)/).textContent()).not.toBe("Seeds (0)");
  });

  it("opens an anchor: the exact version's content with the span highlighted, verified", async () => {
    const card = fx.page.locator('li.card[data-chunk="decision:damping"]');
    await card.locator("button.anchor").first().click();
    const verdict = fx.page.getByTestId("verdict");
    await verdict.waitFor();
    expect(await verdict.textContent()).toMatch(
      /^Verified: the snippet is exactly the text at \[\d+, \d+\) of version 2\./,
    );
    const marked = await fx.page.locator(".anchor-view mark").textContent();
    expect(marked?.length).toBeGreaterThan(0);
    expect(await fx.page.locator(".anchor-view pre").textContent()).toContain(marked ?? "\u0000");
  });

  it("moving as_of with the keyboard switches the card to the version valid then", async () => {
    const slider = fx.page.getByRole("slider");
    await slider.focus();
    await fx.page.keyboard.press("Home"); // the earliest change: 2024-01-01, when only v1 existed
    const card = fx.page.locator('li.card[data-chunk="decision:damping"][data-version="1"]');
    await card.waitFor();
    expect(await card.locator(".badge.changed").textContent()).toBe("was v2");
    // Notes valid only later disappear from the answer.
    expect(await fx.page.locator('li.card[data-chunk="note:budget"]').count()).toBe(0);
    await fx.page.keyboard.press("End"); // back to now
    await fx.page.locator('li.card[data-chunk="decision:damping"][data-version="2"]').waitFor();
  });

  it("opens a chunk's history: versions on a timeline, a diff, neighbours and an entity", async () => {
    await fx.page.getByRole("tab", { name: "Browse" }).click();
    await fx.page.getByRole("button", { name: "decision:damping", exact: true }).click();
    const timeline = fx.page.getByRole("list", { name: "Version timeline" });
    await timeline.waitFor();
    expect(await timeline.locator("li").count()).toBe(2);
    await fx.page.getByRole("button", { name: "Diff v1 → v2" }).click();
    const diff = fx.page.locator(".diff");
    await diff.waitFor();
    expect(await diff.locator(".ins").textContent()).toContain("+ We moved the PageRank damping to 0.5");
    expect(await diff.locator(".del").textContent()).toContain("0.85");
    await fx.page.getByRole("heading", { name: "Neighbours" }).waitFor();
    await fx.page.locator(".panel li", { hasText: "note:hipporag" }).first().waitFor();
    // Filters and paging: kind=note lists the two notes only.
    await fx.page.getByLabel("Kind").selectOption("note");
    await fx.page.getByRole("button", { name: "Filter" }).click();
    await expect.poll(() => fx.page.locator(".chunk-table tbody tr").count()).toBe(2);
    await shot(fx.page, "browse-light-laptop");
  });

  it("another archive's data is unreachable with this key", async () => {
    // The page offers only the key's own archive and never shows B's chunks.
    expect(await fx.page.locator("select[name=archive]").count()).toBe(0);
    expect(await fx.page.getByTestId("scopes").textContent()).toBe("read + write");
    const rw = new PaperGuruClient(fx.server.url, fx.A.key);
    for (const call of [
      () => rw.chunks(fx.B.id),
      () => rw.chunk(fx.B.id, "secret:b"),
      () => rw.context(fx.B.id, { query: "damping" }),
      () => rw.deliveries(fx.B.id, "x"),
    ]) {
      const err = await call().then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(PaperGuruError);
      expect((err as PaperGuruError).status).toBe(403);
    }
    const me = await rw.whoami();
    expect(me.archives.map((a) => a.id)).toEqual([fx.A.id]);
    // The same query in A never cites B's chunk.
    await fx.page.getByRole("tab", { name: "Ask and route" }).click();
    await fx.page.getByLabel("Query").fill("Archive B damping 0.7");
    await fx.page.getByRole("button", { name: "Ask", exact: true }).click();
    await fx.page.getByRole("heading", { name: /^Cards/ }).waitFor();
    expect(await fx.page.locator('li.card[data-chunk="secret:b"]').count()).toBe(0);
    expect(await fx.page.content()).not.toContain("secret:b");
  });

  it("saves screenshots of each screen, light and dark, laptop and phone", async () => {
    for (const [size, viewport] of Object.entries(VIEWPORTS))
      for (const theme of ["light", "dark"] as const) {
        const p = await newPage(viewport);
        await p.emulateMedia({ colorScheme: theme });
        await p.goto(`${fx.server.url}/`);
        await shot(p, `signin-${theme}-${size}`);
        await p.getByLabel("Key").fill(fx.A.key);
        await p.getByRole("button", { name: "Open" }).click();
        await ask(p);
        // The toggle follows the system theme until chosen: check it switches the fx.page.
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
    await signIn(p, fx.A.readKey);
    expect(await p.getByTestId("scopes").textContent()).toBe("read");
    await p.getByRole("tab", { name: "Operate" }).click();
    await p.locator("[data-subscription=agent]").waitFor();
    expect(await p.locator("button.write").count()).toBe(0);
    await p.close();
  });
});
