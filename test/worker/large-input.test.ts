/**
 * Large but valid inputs answer 2xx or a 4xx naming the field, never a 500: a generated code unit
 * of 817 KB (16,000 declarations) is stored whole with its first declarations.
 */
import { describe, expect, it } from "vitest";
import { api, newArchive } from "./helpers";

function generatedModule(chars: number): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < chars; i++) {
    const l =
      i % 2
        ? `export function handler${i}(req: Request, ctx: Context${i}): Promise<Response${i}> { return run${i}(req); }`
        : `export class Service${i} extends Base${i} { method${i}() { return ${i}; } }`;
    lines.push(l);
    size += l.length + 1;
  }
  return lines.join("\n");
}

describe("large but valid inputs", () => {
  it("stores an 817 KB code unit of 16,000 declarations, through REST ingest and the JSON import", async () => {
    const { id, key } = await newArchive("large");
    const content = generatedModule(817_000);
    const ing = await api(
      "POST",
      `/v1/archives/${id}/ingest`,
      { artifacts: [{ id: "gh:acme/big/src/gen.ts", kind: "code_unit", title: "gen.ts", content }] },
      key,
    );
    expect(ing.status, JSON.stringify(ing.body).slice(0, 400)).toBe(200);
    const read = await api(
      "GET",
      `/v1/archives/${id}/chunks/${encodeURIComponent("gh:acme/big/src/gen.ts")}/content?max_chars=1000000`,
      undefined,
      key,
    );
    expect(read.body.text).toBe(content);
    const imp = await api(
      "POST",
      `/v1/archives/${id}/import?format=json&name=gen.json`,
      { artifacts: [{ id: "gh:acme/big/src/gen2.ts", kind: "code_unit", title: "gen2.ts", content }] },
      key,
    );
    expect(imp.status, JSON.stringify(imp.body).slice(0, 400)).toBeLessThan(300);
  });
});
