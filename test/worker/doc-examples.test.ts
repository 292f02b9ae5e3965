/** docs/examples.md run as written (test/worker/doc-curl.ts): one archive per section. */
import { describe, expect, it } from "vitest";
import EXAMPLES from "../../docs/examples.md?raw";
import { runSteps, sections } from "./doc-curl";
import { newArchive } from "./helpers";

const U = "http://paperguru.test";

describe("docs/examples.md", () => {
  const names = [...sections(EXAMPLES, { U }).keys()].filter((s) => s && !s.startsWith("The other"));

  it("has an example per seed system it documents", () => {
    expect(names.some((n) => n.startsWith("SGMC"))).toBe(true);
    expect(names.some((n) => n.startsWith("xKG"))).toBe(true);
  });

  for (const name of names) {
    it(`${name}: every request answers 2xx with what the page says`, async () => {
      const a = await newArchive("doc");
      const steps = sections(EXAMPLES, { U, A: a.id, KEY: a.key }).get(name) ?? [];
      expect(steps.length).toBeGreaterThan(1);
      await runSteps(steps);
    });
  }
});
