/**
 * REST /context and /route: the trace only when asked (include_trace: off by default on /context,
 * on by default on /route), and /context's card JSON, as returned, within budget_tokens.
 */
import { describe, expect, it } from "vitest";
import { countTokens, loadTokenizer } from "../../src/core/text/tokenizer";
import { api, newArchive } from "./helpers";

const TOPICS = ["harbour", "lantern", "keeper", "fog", "reef", "tide"];
/** 30 notes of ~500 characters, several sentences each (cards with several anchors). */
const NOTES = Array.from({ length: 30 }, (_, i) => {
  const t = TOPICS[i % TOPICS.length] as string;
  return {
    id: `note:${t}-${i}`,
    kind: "note",
    title: `The ${t} of station ${i}`,
    content: `Station ${i} records the ${t} every morning. The ${t} log of station ${i} notes the wind, the swell and the visibility. Keepers at station ${i} compare the ${t} with the almanac. In ${2000 + i} the ${t} readings were moved to a ledger kept in the lamp room. The ledger of station ${i} lists ${i + 3} entries a day, each signed by the keeper on watch.`,
    entities: [{ type: "concept", name: t }],
    valid_from: "2024-01-01",
  };
});

describe("REST /context: the card JSON fits budget_tokens", () => {
  it("over several budgets and both tokenizers, with and without a session window", async () => {
    const { id, key } = await newArchive("ctxb");
    expect((await api("POST", `/v1/archives/${id}/ingest`, { artifacts: NOTES }, key)).status).toBe(200);
    const ev = await api(
      "POST",
      `/v1/archives/${id}/sessions/s1/events`,
      { events: [{ role: "user", text: "We are checking the fog and lantern logs of every station this week." }] },
      key,
    );
    expect(ev.status).toBe(200);
    await loadTokenizer("o200k_base");
    const ratios: string[] = [];
    for (const tokenizer of ["cl100k_base", "o200k_base"] as const)
      for (const session_id of [undefined, "s1"])
        for (const budget_tokens of [120, 300, 600, 1200, 2400, 4800]) {
          const r = await api(
            "POST",
            `/v1/archives/${id}/context`,
            { query: "fog and lantern logs of the keepers", budget_tokens, tokenizer, session_id },
            key,
          );
          expect(r.status, JSON.stringify(r.body)).toBe(200);
          const b = r.body;
          const wire = b.cards.length ? countTokens(JSON.stringify(b.cards), tokenizer) : 0;
          expect(wire + b.budget.short_term, `${tokenizer} ${budget_tokens}`).toBeLessThanOrEqual(budget_tokens);
          expect(b.budget.cards).toBe(wire);
          expect(b.budget.remaining).toBe(budget_tokens - b.budget.short_term - wire);
          if (budget_tokens >= 600) expect(b.cards.length).toBeGreaterThan(0);
          // The session's one event is in the window or counted as dropped (the chunks the session
          // opened in earlier calls are newer and go first).
          if (session_id) expect(b.short_term.length + (b.short_term_dropped?.events ?? 0)).toBe(1);
          const prompt = b.cards.reduce((s: number, c: { tokens: number }) => s + c.tokens, 0);
          if (tokenizer === "cl100k_base" && !session_id && b.cards.length)
            ratios.push(`${budget_tokens}: ${b.cards.length} cards, ${wire} / ${prompt}`);
          // No trace unless asked.
          expect(b.trace).toBeUndefined();
        }
    console.log(`REST /context card JSON tokens / prompt-form tokens, by budget: ${ratios.join("; ")}`);
    // Cards that did not fit are named.
    const tight = await api(
      "POST",
      `/v1/archives/${id}/context`,
      { query: "fog and lantern logs of the keepers", budget_tokens: 300 },
      key,
    );
    expect(tight.body.skipped.some((s: { reason: string }) => s.reason === "over_budget")).toBe(true);
    // The kernel packs by the returned JSON, so exactly the cards returned are logged as expanded
    // (and so reach the session's short-term window), not the ~2x more the prompt form would fit.
    const ctx = await api(
      "POST",
      `/v1/archives/${id}/context`,
      { query: "fog and lantern logs of the keepers", budget_tokens: 1200, session_id: "s-log" },
      key,
    );
    const returned = (ctx.body.cards as Array<{ artifact_id: string }>).map((c) => c.artifact_id).sort();
    expect(returned.length).toBeGreaterThan(0);
    const acc = await api(
      "GET",
      `/v1/archives/${id}/access-counts?by=chunk&session_id=s-log&limit=500`,
      undefined,
      key,
    );
    expect(acc.status, JSON.stringify(acc.body)).toBe(200);
    const expanded = (acc.body.rows as Array<{ key: string; expansion: number }>)
      .filter((x) => x.expansion > 0)
      .map((x) => x.key)
      .sort();
    expect(expanded).toEqual(returned);
  });

  it("include_trace: /context and /route add it on request", async () => {
    const { id, key } = await newArchive("ctxt");
    expect((await api("POST", `/v1/archives/${id}/ingest`, { artifacts: NOTES.slice(0, 6) }, key)).status).toBe(200);
    const q = { query: "fog logs" };
    const ctx = await api("POST", `/v1/archives/${id}/context`, { ...q, include_trace: true }, key);
    expect(ctx.body.trace.timings_ms).toBeDefined();
    const bare = await api("POST", `/v1/archives/${id}/context`, q, key);
    expect(bare.body.trace).toBeUndefined();
    expect(bare.body.cards.map((c: { artifact_id: string }) => c.artifact_id)).toEqual(
      ctx.body.cards.map((c: { artifact_id: string }) => c.artifact_id),
    );
    const route = await api("POST", `/v1/archives/${id}/route`, { ...q, include_trace: true }, key);
    expect(route.body.trace.seeds.length).toBeGreaterThan(0);
    const untraced = await api("POST", `/v1/archives/${id}/route`, q, key);
    expect(untraced.body.trace).toBeUndefined();
    expect(untraced.body.candidates).toEqual(route.body.candidates);
    const bytes = (x: unknown) => JSON.stringify(x).length;
    console.log(
      `REST bytes without / with trace: /route ${bytes(untraced.body)} / ${bytes(route.body)}; /context ${bytes(bare.body)} / ${bytes(ctx.body)}`,
    );
    const bad = await api("POST", `/v1/archives/${id}/context`, { ...q, include_trace: "yes" }, key);
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBe("include_trace");
  });
});
