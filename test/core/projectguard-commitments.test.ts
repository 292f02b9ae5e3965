/** Revisions in the commitments check (seed 002 B.1): edits to kept records over new nodes. */
import { describe, expect, it } from "vitest";
import { checkCommitments, commitmentsPrompt, type RecordRef, type Turn } from "../../src/core/proposals/commitments";

const turns: Turn[] = [
  { id: "turn:s/1", version: 1, role: "user", text: "Move the heads cache to Workers KV from now on.", at: 1 },
];
const records: RecordRef[] = [
  { id: "design:cache", kind: "design", title: "Heads cache", status: "committed", content: "In a Durable Object." },
  { id: "decision:lru", kind: "decision", title: "Evict by LRU", status: "proposed", content: "LRU eviction." },
];
const item = (over: Record<string, unknown>) => ({
  kind: "design",
  title: "Heads cache in KV",
  content: "The heads cache lives in Workers KV.",
  design: "",
  revises: "",
  evidence: [{ turn: "turn:s/1", quote: "Move the heads cache to Workers KV" }],
  ...over,
});
const check = (items: unknown[]) => {
  const r = checkCommitments({ records: items }, turns, [], records);
  if (typeof r === "string") throw new Error(r);
  return r;
};

describe("revisions of kept records", () => {
  it("lists the kept records with id, kind and status in the prompt", () => {
    const p = commitmentsPrompt(turns, [], records);
    expect(p).toContain("- design:cache (design, committed): Heads cache: In a Durable Object.");
  });

  it("keeps a revision of a listed record of the same kind", () => {
    expect(check([item({ revises: "design:cache" })]).items[0]?.revises).toBe("design:cache");
  });

  it("a new record titled as a kept one revises it instead of standing beside it", () => {
    expect(check([item({ title: "heads CACHE" })]).items[0]?.revises).toBe("design:cache");
    expect(check([item({})]).items[0]?.revises).toBeNull();
  });

  it("drops a revision link to an unknown record or another kind, and a second revision of one record", () => {
    const unknown = check([item({ revises: "design:nope" })]);
    expect(unknown.items[0]?.revises).toBeNull();
    expect(unknown.dropped[0]?.reason).toContain("a record it was not given");
    const kind = check([item({ revises: "decision:lru" })]);
    expect(kind.items[0]?.revises).toBeNull();
    expect(kind.dropped[0]?.reason).toContain("a decision, not a design");
    const twice = check([item({ revises: "design:cache" }), item({ title: "Cache in KV", revises: "design:cache" })]);
    expect(twice.items.length).toBe(1);
    expect(twice.dropped[0]?.reason).toBe("a second revision of design:cache");
  });
});
