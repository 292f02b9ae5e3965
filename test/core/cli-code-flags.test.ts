import { describe, expect, it } from "vitest";
import type { Run } from "../../src/cli/command";
import { UsageError } from "../../src/cli/io";
import { codeFromFlags, rewriteCodeChunks } from "../../src/cli/query-flags";

/** The two accessors codeFromFlags reads, over fixed values. */
function run(values: Record<string, string>): Run {
  const r: Pick<Run, "str" | "int"> = {
    str: (n) => values[n],
    int: (n, lo, hi) => {
      const v = values[n];
      if (v === undefined) return undefined;
      const x = Number(v);
      if (!Number.isInteger(x) || x < lo || x > hi) throw new UsageError(`--${n} must be an integer`);
      return x;
    },
  };
  return r as Run;
}

describe("--code-chunks and --max-code-bytes", () => {
  it("a bare --code-chunks takes the defaults; a size[:overlap] value is kept", () => {
    expect(rewriteCodeChunks(["q", "--code-chunks"])).toEqual(["q", "--code-chunks="]);
    expect(rewriteCodeChunks(["--code-chunks", "q"])).toEqual(["--code-chunks=", "q"]);
    expect(rewriteCodeChunks(["q", "--code-chunks", "200:50"])).toEqual(["q", "--code-chunks=200:50"]);
    expect(rewriteCodeChunks(["q", "--", "--code-chunks"])).toEqual(["q", "--", "--code-chunks"]);
  });

  it("maps onto the body, with bad bounds as usage errors naming the flag", () => {
    expect(codeFromFlags(run({}))).toEqual({});
    expect(codeFromFlags(run({ "code-chunks": "" }))).toEqual({ code_chunks: true });
    expect(codeFromFlags(run({ "code-chunks": "200", "max-code-bytes": "52100" }))).toEqual({
      max_code_bytes: 52100,
      code_chunks: { size: 200 },
    });
    expect(codeFromFlags(run({ "code-chunks": "350:100" }))).toEqual({ code_chunks: { size: 350, overlap: 100 } });
    for (const bad of ["10", "350:350", "x", "1:2:3"])
      expect(() => codeFromFlags(run({ "code-chunks": bad }))).toThrow(/--code-chunks/);
  });
});
