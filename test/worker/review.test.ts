/** Human verification (statuses, history as of, edge removal as a temporal change) and retrieval metrics with runs. */
import { describe, expect, it } from "vitest";
import { api, newArchive } from "./helpers";

const base = (id: string) => `/v1/archives/${id}`;

async function seed(id: string, key: string) {
  const res = await api(
    "POST",
    `${base(id)}/ingest`,
    {
      artifacts: [
        {
          id: "concept:ppr",
          kind: "note",
          title: "Personalized PageRank",
          content: "Personalized PageRank restarts random walks at seed nodes with damping 0.5.",
          edges: [{ type: "cites", target: "paper:hipporag" }],
          valid_from: "2024-01-01",
        },
        {
          id: "paper:hipporag",
          kind: "paper",
          title: "HippoRAG neurobiological memory",
          content: "HippoRAG stores a schemaless knowledge graph and retrieves with PageRank.",
          valid_from: "2024-01-01",
        },
        {
          id: "paper:raptor",
          kind: "paper",
          title: "RAPTOR recursive abstractive tree summaries",
          content: "RAPTOR clusters chunks and summarises them into a tree for retrieval.",
          valid_from: "2024-01-01",
        },
      ],
    },
    key,
  );
  expect(res.status).toBe(200);
}

describe("review", () => {
  it("records verify, flag and edit on a node with a history readable as of any time", async () => {
    const { id, key } = await newArchive("rev");
    await seed(id, key);
    const r0 = await api("GET", `${base(id)}/review?chunk=concept%3Appr`, undefined, key);
    expect(r0.status).toBe(200);
    expect(r0.body).toMatchObject({ status: "auto-generated", since: null, history: [] });

    const v = await api("POST", `${base(id)}/review`, { op: "verify", chunk: "concept:ppr", at: "2024-02-01" }, key);
    expect(v.status).toBe(201);
    expect(v.body).toMatchObject({ status: "human-verified", previous_status: "auto-generated", version: 1 });
    expect(v.body.actor).toMatch(/^key:/);
    const noReason = await api("POST", `${base(id)}/review`, { op: "flag", chunk: "concept:ppr" }, key);
    expect(noReason.status).toBe(400);
    expect(noReason.body.error.field).toBe("reason");
    const f = await api(
      "POST",
      `${base(id)}/review`,
      { op: "flag", chunk: "concept:ppr", reason: "damping is 0.85 in the paper", at: "2024-03-01" },
      key,
    );
    expect(f.body).toMatchObject({ status: "flagged", previous_status: "human-verified" });
    const e = await api(
      "POST",
      `${base(id)}/review`,
      {
        op: "edit",
        chunk: "concept:ppr",
        changes: { content: "Personalized PageRank restarts random walks at seed nodes with damping 0.85." },
        reason: "fixed the damping",
        at: "2024-04-01",
      },
      key,
    );
    expect(e.status).toBe(201);
    expect(e.body).toMatchObject({ status: "human-edited", version: 2 });
    // The edit is a new version; the old text is still there as of before it.
    const old = await api("GET", `${base(id)}/chunks/concept%3Appr/content?as_of=2024-03-15`, undefined, key);
    expect(old.body.text).toContain("damping 0.5.");
    const cur = await api("GET", `${base(id)}/chunks/concept%3Appr/content`, undefined, key);
    expect(cur.body.text).toContain("damping 0.85.");
    // The edit kept the chunk's declared edge.
    const edge = await api(
      "GET",
      `${base(id)}/review?from=concept%3Appr&type=cites&to=paper%3Ahipporag`,
      undefined,
      key,
    );
    expect(edge.body.edge.exists).toBe(true);

    const mar = await api("GET", `${base(id)}/review?chunk=concept%3Appr&as_of=2024-03-15`, undefined, key);
    expect(mar.body).toMatchObject({
      status: "flagged",
      since: "2024-03-01T00:00:00.000Z",
      reason: "damping is 0.85 in the paper",
    });
    expect(mar.body.history.map((h: { op: string }) => h.op)).toEqual(["verify", "flag"]);
    const now = await api("GET", `${base(id)}/review?chunk=concept%3Appr`, undefined, key);
    expect(now.body.status).toBe("human-edited");
    expect(now.body.history.map((h: { status: string }) => h.status)).toEqual([
      "human-verified",
      "flagged",
      "human-edited",
    ]);
    const jan = await api("GET", `${base(id)}/review?chunk=concept%3Appr&as_of=2024-01-15`, undefined, key);
    expect(jan.body.status).toBe("auto-generated");

    const same = await api(
      "POST",
      `${base(id)}/review`,
      { op: "edit", chunk: "concept:ppr", changes: { title: "Personalized PageRank" } },
      key,
    );
    expect(same.status).toBe(409);
  });

  it("removes an edge by ending its validity: as_of before still sees it; add_edge and edge statuses", async () => {
    const { id, key } = await newArchive("rev2");
    await seed(id, key);
    const edge = { from: "concept:ppr", type: "cites", to: "paper:hipporag" };
    const q = `from=concept%3Appr&type=cites&to=paper%3Ahipporag`;
    const rm = await api(
      "POST",
      `${base(id)}/review`,
      { op: "remove_edge", edge, reason: "wrong", at: "2024-05-01" },
      key,
    );
    expect(rm.status).toBe(201);
    expect(rm.body).toMatchObject({ status: "human-edited", version: 2, target: { edge } });
    const before = await api("GET", `${base(id)}/review?${q}&as_of=2024-04-01`, undefined, key);
    expect(before.body.edge).toMatchObject({ exists: true, valid_to: "2024-05-01T00:00:00.000Z" });
    expect(before.body.status).toBe("auto-generated");
    const after = await api("GET", `${base(id)}/review?${q}`, undefined, key);
    expect(after.body.edge.exists).toBe(false);
    expect(after.body.status).toBe("human-edited");
    expect(after.body.history[0]).toMatchObject({ op: "remove_edge", reason: "wrong" });
    // follow reads the same edges: present before, gone after.
    const exp = (as_of: string) =>
      api(
        "POST",
        `${base(id)}/expand`,
        { chunks: [{ id: "concept:ppr" }], as_of, follow: [{ type: "cites", direction: "out" }] },
        key,
      );
    expect((await exp("2024-04-01")).body.cards[0].follow.map((x: { chunk: string }) => x.chunk)).toEqual([
      "paper:hipporag",
    ]);
    expect((await exp("2024-06-01")).body.cards[0].follow).toEqual([]);
    // Removing it again: nothing declares it.
    expect((await api("POST", `${base(id)}/review`, { op: "remove_edge", edge }, key)).status).toBe(404);
    // Verifying a removed edge: not valid now.
    expect((await api("POST", `${base(id)}/review`, { op: "verify", edge }, key)).status).toBe(404);

    const add = { from: "concept:ppr", type: "cites", to: "paper:raptor" };
    const a = await api("POST", `${base(id)}/review`, { op: "add_edge", edge: add, at: "2024-06-01" }, key);
    expect(a.status).toBe(201);
    expect(a.body).toMatchObject({ version: 3, status: "human-edited" });
    expect((await api("POST", `${base(id)}/review`, { op: "add_edge", edge: add }, key)).status).toBe(409);
    // With an event_id, a retry is the first answer again and writes nothing.
    const add2 = { from: "concept:ppr", type: "cites", to: "paper:hipporag" };
    const once = { op: "add_edge", edge: add2, at: "2024-07-01", event_id: "agent-7/step-3" };
    const first = await api("POST", `${base(id)}/review`, once, key);
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body).toMatchObject({ version: 4, duplicate: false });
    const retry = await api("POST", `${base(id)}/review`, once, key);
    expect([retry.status, retry.body]).toEqual([201, first.body]);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    const versions = await api("GET", `${base(id)}/history?chunk=concept%3Appr`, undefined, key);
    expect(versions.body.versions).toHaveLength(4);
    const reused = await api("POST", `${base(id)}/review`, { ...once, op: "remove_edge" }, key);
    expect(reused.status).toBe(409);
    expect(reused.body.error.field).toBe("event_id");
    const rm2 = await api("POST", `${base(id)}/review`, { op: "remove_edge", edge: add2, at: "2024-07-02" }, key);
    expect(rm2.status).toBe(201);
    const fl = await api("POST", `${base(id)}/review`, { op: "flag", edge: add, reason: "unsure" }, key);
    expect(fl.body).toMatchObject({ status: "flagged", previous_status: "human-edited", version: null });
    const node = await api("GET", `${base(id)}/review?chunk=concept%3Appr`, undefined, key);
    expect(node.body.status).toBe("auto-generated");
    expect(node.body.edges).toEqual(
      expect.arrayContaining([
        { type: "cites", to: "paper:hipporag", status: "human-edited" },
        { type: "cites", to: "paper:raptor", status: "flagged" },
      ]),
    );
    // A version can only start after the current one.
    const early = await api("POST", `${base(id)}/review`, { op: "remove_edge", edge: add, at: "2024-01-02" }, key);
    expect(early.status).toBe(409);
    expect(early.body.error.field).toBe("at");
  });

  it("refuses bad shapes, read-only keys and other archives", async () => {
    const { id, key } = await newArchive("rev3");
    const other = await newArchive("rev4");
    await seed(id, key);
    const ro = (await api("POST", `${base(id)}/keys`, { scopes: ["read"] })).body.secret as string;
    const body = { op: "verify", chunk: "concept:ppr" };
    expect((await api("POST", `${base(id)}/review`, body, ro)).status).toBe(403);
    expect((await api("GET", `${base(id)}/review?chunk=concept%3Appr`, undefined, ro)).status).toBe(200);
    expect((await api("POST", `${base(id)}/review`, body, other.key)).status).toBe(403);
    expect((await api("GET", `${base(id)}/review?chunk=concept%3Appr`, undefined, other.key)).status).toBe(403);
    const both = await api(
      "POST",
      `${base(id)}/review`,
      { op: "verify", chunk: "concept:ppr", edge: { from: "concept:ppr", type: "cites", to: "paper:hipporag" } },
      key,
    );
    expect(both.status).toBe(400);
    expect((await api("POST", `${base(id)}/review`, { op: "edit", chunk: "concept:ppr" }, key)).body.error.field).toBe(
      "changes",
    );
    expect((await api("POST", `${base(id)}/review`, { op: "verify", chunk: "nope" }, key)).status).toBe(404);
    const derived = await api(
      "POST",
      `${base(id)}/review`,
      { op: "add_edge", edge: { from: "concept:ppr", type: "mentions", to: "paper:raptor" } },
      key,
    );
    expect(derived.status).toBe(400);
    expect(derived.body.error.field).toBe("edge.type");
    expect((await api("GET", `${base(id)}/review`, undefined, key)).status).toBe(400);
    expect(
      (await api("GET", `${base(id)}/review?from=concept%3Appr&type=cites`, undefined, key)).body.error.field,
    ).toBe("to");
  });
});

describe("retrieval metrics", () => {
  it("scores the router's ranking against gold ids, stores runs and lists them newest first", async () => {
    const { id, key } = await newArchive("met");
    await seed(id, key);
    const queries = [
      { query: "RAPTOR recursive abstractive tree summaries", gold: ["paper:raptor"] },
      { query: "HippoRAG neurobiological memory", gold: ["paper:hipporag", "paper:missing"] },
      { query: "RAPTOR tree", gold: ["paper:not-there"] },
    ];
    const r = await api("POST", `${base(id)}/metrics/retrieval`, { queries, k: [1, 3], name: "first" }, key);
    expect(r.status).toBe(201);
    expect(r.body.id).toMatch(/^run_/);
    const per = r.body.per_query;
    expect(per[0]).toMatchObject({ first_rank: 1, hit: 1, reciprocal_rank: 1, recall: { "1": 1, "3": 1 } });
    expect(per[1]).toMatchObject({ first_rank: 1, recall: { "1": 0.5, "3": 0.5 }, precision: { "1": 1 } });
    expect(per[1].precision["3"]).toBeCloseTo(1 / 3, 3);
    expect(per[2]).toMatchObject({ hit: 0, reciprocal_rank: 0, first_rank: null });
    // The aggregate is the mean of the per-query values, whatever the router returned.
    for (const p of per) expect(p.returned.length).toBeLessThanOrEqual(3);
    expect(r.body.aggregate).toMatchObject({ queries: 3, hit_rate: 0.6667, mrr: 0.6667 });
    expect(r.body.aggregate.recall["1"]).toBeCloseTo((1 + 0.5 + 0) / 3, 3);

    const filtered = await api(
      "POST",
      `${base(id)}/metrics/retrieval`,
      { queries: [{ ...queries[0], filter: { kinds: ["note"] } }], k: [3], store: false },
      key,
    );
    expect(filtered.body).toMatchObject({ id: null, aggregate: { hit_rate: 0 } });
    const second = await api(
      "POST",
      `${base(id)}/metrics/retrieval`,
      { queries: queries.slice(0, 1), name: "second" },
      key,
    );
    expect(second.body.k).toEqual([1, 5, 10]);
    const list = await api("GET", `${base(id)}/metrics/retrieval/runs?limit=1`, undefined, key);
    expect(list.body.items.map((x: { name: string }) => x.name)).toEqual(["second"]);
    expect(list.body.next_cursor).not.toBeNull();
    const page2 = await api(
      "GET",
      `${base(id)}/metrics/retrieval/runs?limit=1&cursor=${list.body.next_cursor}`,
      undefined,
      key,
    );
    expect(page2.body.items.map((x: { name: string }) => x.name)).toEqual(["first"]);
    expect(page2.body.next_cursor).toBeNull();
    const one = await api("GET", `${base(id)}/metrics/retrieval/runs/${r.body.id}`, undefined, key);
    expect(one.body.per_query).toEqual(per);
    expect(one.body.aggregate).toEqual(r.body.aggregate);

    const other = await newArchive("met2");
    expect((await api("GET", `${base(id)}/metrics/retrieval/runs/${r.body.id}`, undefined, other.key)).status).toBe(
      403,
    );
    expect(
      (await api("GET", `${base(other.id)}/metrics/retrieval/runs/${r.body.id}`, undefined, other.key)).status,
    ).toBe(404);
    const ro = (await api("POST", `${base(id)}/keys`, { scopes: ["read"] })).body.secret as string;
    expect((await api("POST", `${base(id)}/metrics/retrieval`, { queries }, ro)).status).toBe(403);
    const tooMany = Array.from({ length: 101 }, () => queries[0]);
    expect((await api("POST", `${base(id)}/metrics/retrieval`, { queries: tooMany }, key)).status).toBe(400);
  });
});
