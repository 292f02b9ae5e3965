/**
 * A real dead letter in the explorer: archive A's subscriber always answers 500, so the Worker's
 * queue retries each event delivery 5 times (10 + 20 + 40 + 80 s of backoff) and then marks it dead.
 * ~150 s of waiting: run by `npm run test:full`, not `npm test`.
 */
import { describe, expect, it } from "vitest";
import { PaperGuruClient } from "../../src/client";
import { fx, newPage, shot, signIn, useExplorer, waitForDeadLetter } from "./fixture";

useExplorer();

describe("explorer: dead letters", () => {
  it("shows a dead letter and replays it", async () => {
    await signIn(fx.page, fx.A.key);
    await fx.page.getByRole("tab", { name: "Operate" }).click();
    const events = fx.page.locator("[data-subscription=agent]");
    await events.waitFor();
    await events.getByLabel("dead letters only").check();
    // The fifth failed attempt is ~150 s after the ingest (queue backoff 10 + 20 + 40 + 80 s).
    await waitForDeadLetter(events, 220_000);
    expect(fx.subscriberHits).toBeGreaterThanOrEqual(5);
    const dead = events.locator("li.dead-letter").first();
    expect(await dead.textContent()).toMatch(/5 attempts · HTTP 500/);
    await shot(fx.page, "operate-dead-letter-light-laptop");
    // The same dead letter seen with the read-only key: no Replay button.
    const ro = await newPage();
    await signIn(ro, fx.A.readKey);
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
    const rw = new PaperGuruClient(fx.server.url, fx.A.key);
    const after = (await rw.events(fx.A.id, "agent")).events.find((e) => e.id === id);
    expect(after?.status).not.toBe("dead");
  }, 240_000);
});
