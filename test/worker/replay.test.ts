/** A captured delivery re-sent under a new delivery id never changes stored state. */
import { describe, expect, it } from "vitest";
import { newArchive } from "./helpers";
import { createWebhook, history, sendGeneric, waitDelivery } from "./world";

const feed = (content: string) => ({
  artifacts: [{ id: "decision:db", kind: "decision", title: "Database", content }],
});

describe("webhook replay", () => {
  it("recognises a captured body under a new delivery id and does not roll state back", async () => {
    const { id, key } = await newArchive("replay");
    const secret = await createWebhook(id, "feed", "generic");
    const ts = Math.floor(Date.now() / 1000);
    const v1 = await sendGeneric(id, "feed", secret, feed("We use SQLite."), { delivery: "d1", ts });
    expect(v1.status).toBe(202);
    await waitDelivery(id, key, "feed", "d1");
    const v2 = await sendGeneric(id, "feed", secret, feed("We moved to Postgres."), { delivery: "d2" });
    expect(v2.status).toBe(202);
    await waitDelivery(id, key, "feed", "d2");
    // The attacker re-sends d1's exact bytes, timestamp and signature under a fresh delivery id.
    const replay = await sendGeneric(id, "feed", secret, feed("We use SQLite."), { delivery: "d3-new-id", ts });
    expect(replay.status).toBe(200);
    expect(replay.body.status).toBe("duplicate");
    const h = await history(id, key, "decision:db");
    expect(h.body.versions).toHaveLength(2);
    expect(h.body.latest_version).toBe(2);
  });
});
