/** routeFilter: research memory (SGMC hubs, drafts and self-loop reviews) stays out of general routes unless asked for. */
import { describe, expect, it } from "vitest";
import { DRAFT, HUB } from "../../src/app/research/common";
import { REVIEW } from "../../src/app/research/self-loop";
import { RESEARCH_MEMORY_BOUNDARIES, routeFilter } from "../../src/core/query";

describe("routeFilter", () => {
  it("adds the research-memory tags to boundariesNone when nothing asks for them", () => {
    expect(routeFilter(undefined)).toEqual({ boundariesNone: ["sgmc:hub", "sgmc:draft", "sgmc:review"] });
    expect(routeFilter({ kinds: ["note"], exclude: ["x"] })).toEqual({
      kinds: ["note"],
      exclude: ["x"],
      boundariesNone: ["sgmc:hub", "sgmc:draft", "sgmc:review"],
    });
    expect(routeFilter({ boundariesNone: ["area:x"] })?.boundariesNone).toEqual([
      "area:x",
      "sgmc:hub",
      "sgmc:draft",
      "sgmc:review",
    ]);
  });

  it("keeps what the caller names: the flag, a filter boundary or a query boundary", () => {
    expect(routeFilter({ researchMemory: true })).toEqual({ researchMemory: true });
    expect(routeFilter({ boundariesAny: ["SGMC:Hub"] })?.boundariesNone).toEqual(["sgmc:draft", "sgmc:review"]);
    expect(routeFilter({ boundariesAll: ["sgmc:draft"] })?.boundariesNone).toEqual(["sgmc:hub", "sgmc:review"]);
    expect(routeFilter(undefined, ["sgmc:hub", "sgmc:draft", "sgmc:review"])).toBeUndefined();
  });

  it("uses the tags the research use cases write", () => {
    expect([...RESEARCH_MEMORY_BOUNDARIES]).toEqual([HUB, DRAFT, REVIEW]);
  });
});
