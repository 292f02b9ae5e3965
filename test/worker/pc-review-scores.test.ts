/** Review-score metrics (Paper Circle §4) through REST and MCP: inline pairs, stored annotation scores, bad input. */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, describe, expect, it } from "vitest";
import { api, newArchive } from "./helpers";
import { connect, ok as mcpOk, toolError } from "./mcp-client";

const base = (id: string) => `/v1/archives/${id}`;
const open: Client[] = [];
afterAll(async () => {
  for (const c of open) await c.close();
});

describe("review-score metrics", () => {
  it("score inline pairs: MSE, MAE, RMSE, Pearson, Spearman, accuracy within ±0.5/1/1.5", async () => {
    const { id, key } = await newArchive("rs");
    const pairs = [
      { predicted: 6, human: 5 },
      { predicted: 3.5, human: 4 },
      { predicted: 8, human: 8 },
    ];
    const r = await api("POST", `${base(id)}/metrics/review-scores`, { pairs }, key);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      n: 3,
      mse: 0.4167,
      mae: 0.5,
      rmse: 0.6455,
      pearson: 0.941,
      spearman: 1,
      accuracy_within: { "0.5": 0.6667, "1": 1, "1.5": 1 },
      skipped: [],
    });
    // A constant side has no correlation: null, not NaN or a 500.
    const flat = await api(
      "POST",
      `${base(id)}/metrics/review-scores`,
      {
        pairs: [
          { predicted: 5, human: 3 },
          { predicted: 5, human: 4 },
        ],
      },
      key,
    );
    expect(flat.status).toBe(200);
    expect(flat.body).toMatchObject({ n: 2, pearson: null, spearman: null, mae: 1.5 });
  });

  it("read stored annotation scores as of a time and list the chunks lacking one", async () => {
    const { id, key } = await newArchive("rs");
    const artifacts = ["a", "b", "c"].map((x) => ({
      id: `paper:${x}`,
      kind: "paper",
      title: `Paper ${x}`,
      content: `Paper ${x} studies review scores.`,
      valid_from: "2024-01-01",
    }));
    expect((await api("POST", `${base(id)}/ingest`, { artifacts }, key)).status).toBe(200);
    const note = async (chunk: string, k: string, value: unknown, at: string) =>
      expect(
        (await api("POST", `${base(id)}/chunks/${encodeURIComponent(chunk)}/annotations`, { key: k, value, at }, key))
          .status,
      ).toBe(201);
    await note("paper:a", "score:model", 7, "2024-02-01");
    await note("paper:a", "score:human", 6, "2024-02-01");
    await note("paper:b", "score:model", 4, "2024-02-01");
    await note("paper:b", "score:human", 5, "2024-02-01");
    await note("paper:c", "score:model", 9, "2024-02-01");
    await note("paper:c", "score:human", 9, "2024-03-01");
    await note("paper:a", "score:human", 7, "2024-04-01");
    const body = (as_of: string) => ({
      annotations: {
        chunks: ["paper:a", "paper:b", "paper:c"],
        predicted_key: "score:model",
        human_key: "score:human",
      },
      as_of,
    });
    const feb = await api("POST", `${base(id)}/metrics/review-scores`, body("2024-02-15"), key);
    expect(feb.status).toBe(200);
    expect(feb.body).toMatchObject({ n: 2, mae: 1, skipped: [{ chunk: "paper:c", missing: ["score:human"] }] });
    const may = await api("POST", `${base(id)}/metrics/review-scores`, body("2024-05-01"), key);
    // a: 7 vs 7, b: 4 vs 5, c: 9 vs 9.
    expect(may.body).toMatchObject({ n: 3, mse: 0.3333, mae: 0.3333, spearman: 1, skipped: [] });
    // Inline pairs pool with the stored ones.
    const both = await api(
      "POST",
      `${base(id)}/metrics/review-scores`,
      { ...body("2024-05-01"), pairs: [{ predicted: 1, human: 3 }] },
      key,
    );
    expect(both.body).toMatchObject({ n: 4, mae: 0.75 });
  });

  it("answer bad input with a 4xx naming the field", async () => {
    const { id, key } = await newArchive("rs");
    const post = (b: unknown) => api("POST", `${base(id)}/metrics/review-scores`, b, key);
    const none = await post({});
    expect(none.status).toBe(400);
    expect(none.body.error.field).toBe("pairs");
    const bad = await post({ pairs: [{ predicted: "six", human: 5 }] });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body.error)).toContain("predicted");
    const same = await post({ annotations: { chunks: ["x"], predicted_key: "s", human_key: "s" } });
    expect(same.status).toBe(400);
    expect(same.body.error.field).toBe("annotations.human_key");
    const missing = await api("POST", `${base("no-such-archive-rs")}/metrics/review-scores`, { pairs: [] });
    expect(missing.status).toBe(404);
  });

  it("are the research tool's review_scores op over MCP", async () => {
    const { id, key } = await newArchive("rs");
    const client = await connect(key, open);
    const r = await mcpOk(client, "research", {
      archive: id,
      op: "review_scores",
      args: {
        pairs: [
          { predicted: 2, human: 2 },
          { predicted: 4, human: 5 },
        ],
      },
    });
    expect(r).toMatchObject({ n: 2, mse: 0.5, mae: 0.5, pearson: 1, accuracy_within: { "0.5": 0.5, "1": 1 } });
    const e = await toolError(client, "research", {
      archive: id,
      op: "review_scores",
      args: { pairs: [{ human: 1 }] },
    });
    expect(JSON.stringify(e)).toContain("args.pairs");
  });
});
