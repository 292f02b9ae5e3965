/** DIR over a fixture repository, checked by hand (the rules are in src/app/metrics.ts). */
import { describe, expect, it } from "vitest";
import { api, newArchive } from "./helpers";

const file = (
  path: string,
  content: string,
  edges: Array<{ type: string; target: string }> = [],
  valid_from = "2024-01-01",
) => ({
  id: `repo/${path}`,
  kind: "code_unit",
  title: path,
  content,
  edges,
  valid_from,
});

const PPR = "def ppr(graph, seeds):\n    return seeds\n\ndef damping():\n    return 0.85\n\ndef _helper():\n    pass\n";
const INDEX = "from .ppr import damping\n\ndef build_index(docs):\n    return damping()\n\nclass Index:\n    pass\n";
const MAIN =
  "from .ppr import ppr\nfrom .index import build_index\n\ndef run():\n    return ppr(build_index([]), [])\n";
const TEST = "from .ppr import ppr, damping\n\ndef test_ppr():\n    assert damping() == 0.85\n";

describe("GET /metrics/dir", () => {
  it("counts standalone exports that integration code reuses, as of a time", async () => {
    const { id, key } = await newArchive("dir");
    const artifacts = [
      file("ppr.py", PPR),
      file("index.py", INDEX, [{ type: "depends-on", target: "repo/ppr.py" }]),
      file("main.py", MAIN, [
        { type: "depends-on", target: "repo/ppr.py" },
        { type: "depends-on", target: "repo/index.py" },
      ]),
      file("test_ppr.py", TEST, [{ type: "tests", target: "repo/ppr.py" }]),
      { id: "note:x", kind: "note", title: "not code", content: "repo notes" },
    ];
    expect((await api("POST", `/v1/archives/${id}/ingest`, { artifacts }, key)).status).toBe(200);
    const r = await api("GET", `/v1/archives/${id}/metrics/dir?prefix=repo/`, undefined, key);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    // By hand: E_total = {index.build_index, index.Index, ppr.ppr, ppr.damping} (_helper is private);
    // main.py (integration) names ppr and build_index; damping is used only by index.py and the test.
    expect(r.body).toMatchObject({
      dir: 0.5,
      total: 4,
      used: 2,
      integration: ["repo/main.py"],
      standalone: ["repo/index.py", "repo/ppr.py"],
      tests: ["repo/test_ppr.py"],
      unused: ["repo/index.py#Index", "repo/ppr.py#damping"],
    });

    // Later, main.py also calls damping(): DIR rises; as of before, it is unchanged.
    const main2 = file(
      "main.py",
      `${MAIN}\ndef tuned():\n    return damping()\n`.replace("from .ppr import ppr", "from .ppr import ppr, damping"),
      [
        { type: "depends-on", target: "repo/ppr.py" },
        { type: "depends-on", target: "repo/index.py" },
      ],
      "2025-01-01",
    );
    await api("POST", `/v1/archives/${id}/ingest`, { artifacts: [main2] }, key);
    expect((await api("GET", `/v1/archives/${id}/metrics/dir?prefix=repo/`, undefined, key)).body.dir).toBe(0.75);
    expect(
      (await api("GET", `/v1/archives/${id}/metrics/dir?prefix=repo/&as_of=2024-06-01`, undefined, key)).body.dir,
    ).toBe(0.5);
    expect((await api("GET", `/v1/archives/${id}/metrics/dir?prefix=nothing/`, undefined, key)).body).toMatchObject({
      dir: 0,
      total: 0,
    });
    expect((await api("GET", `/v1/archives/${id}/metrics/dir`, undefined, key)).status).toBe(400);
  });
});
