import { describe, expect, it } from "vitest";
import { positionalNames, positionalRange } from "../../src/cli/command";
import { COMMANDS } from "../../src/cli/commands";

const INF = Number.POSITIVE_INFINITY;
/** Each command's positional arguments [min, max] as the commands declared them before the usage gave them. */
const DECLARED: Array<[string, number, number]> = [
  ["config set", 2, 2],
  ["config unset", 1, 1],
  ["config show", 0, 0],
  ["archives create", 1, 1],
  ["archives list", 0, 0],
  ["archives get", 0, 1],
  ["archives reembed", 0, 1],
  ["archives delete", 1, 1],
  ["keys create", 0, 0],
  ["keys list", 0, 0],
  ["keys revoke", 1, 1],
  ["import", 1, INF],
  ["route", 1, 1],
  ["context", 1, 1],
  ["expand", 1, 64],
  ["verify", 1, 1],
  ["export", 0, 0],
  ["sources add", 1, 1],
  ["sources list", 0, 0],
  ["sources run", 1, 1],
  ["sources pause", 1, 1],
  ["sources resume", 1, 1],
  ["sources delete", 1, 1],
  ["log", 0, 0],
  ["note", 1, 1],
  ["revise", 1, 1],
  ["deprecate", 1, 1],
  ["forget", 0, 1],
  ["chunks", 0, 0],
  ["show", 1, 1],
  ["history", 0, 1],
  ["resolve", 1, 1],
  ["neighbours", 1, 1],
  ["deletions", 0, 0],
  ["entities", 0, 0],
  ["entity alias", 2, 2],
  ["entity rename", 2, 2],
  ["entity merge", 1, 1],
  ["session add", 2, 2],
  ["webhooks add", 1, 1],
  ["webhooks list", 0, 0],
  ["webhooks delete", 1, 1],
  ["webhooks deliveries", 1, 1],
  ["webhooks replay", 2, 2],
  ["subscriptions add", 1, 1],
  ["subscriptions list", 0, 0],
  ["subscriptions delete", 1, 1],
  ["subscriptions events", 1, 1],
  ["subscriptions redeliver", 2, 2],
  ["access", 0, 0],
  ["annotate", 2, 3],
  ["annotations", 1, 1],
  ["diff", 1, 1],
  ["project brief", 1, 1],
  ["project render", 0, 0],
  ["project dir", 1, 1],
  ["project judge", 1, 20],
  ["project spec", 1, 1],
  ["project run", 1, 1],
  ["project exposure", 1, 1],
  ["project metrics", 0, 0],
  ["project calibrate", 1, 1],
  ["xkg pairs", 1, 1],
  ["xkg export", 0, 0],
  ["xkg grounding", 0, 0],
  ["xkg propose", 1, 1],
  ["xkg rewrite", 1, 1],
  ["research tree", 1, 1],
  ["research hubs", 1, 1],
  ["research drafts", 1, 1],
  ["research convergence", 1, 1],
  ["research feedback", 0, 0],
  ["research assemble", 1, 1],
  ["research references", 0, 1],
  ["research outline", 1, 1],
  ["research loop", 1, 1],
  ["research scaffold", 1, 1],
  ["papers modes", 0, 1],
  ["papers stats", 0, 0],
  ["papers locate", 2, 2],
  ["papers coverage", 1, 1],
  ["papers review", 0, 1],
  ["papers metrics", 0, 1],
  ["papers review-scores", 0, 1],
  ["papers reviewers", 1, 1],
  ["papers spec", 1, 1],
  ["papers ranking-stats", 1, 1],
  ["papers discover", 1, 1],
  ["paperbench score", 1, 1],
];

describe("paperguru CLI: positional arguments from the usage", () => {
  it("gives every command the counts it declared", () => {
    const counts = COMMANDS.map((c) => [c.name, ...(c.positionals ?? positionalRange(c.args))]);
    expect(counts).toEqual(DECLARED);
  });

  it("declares counts only where the usage leaves the number of `<x>...` open", () => {
    const declared = COMMANDS.filter((c) => c.positionals).map((c) => [c.name, positionalRange(c.args)]);
    expect(declared).toEqual([
      ["expand", [1, INF]],
      ["project judge", [1, INF]],
    ]);
  });

  it("reads flag values, optional groups and alternatives", () => {
    expect(positionalRange("<id> --into <id> [--at <time>]")).toEqual([1, 1]);
    expect(positionalRange("<chunk> <key> [<value> | --add <n>]")).toEqual([2, 3]);
    expect(positionalRange("<chunk-id> | --entity <id>  --yes")).toEqual([0, 1]);
    expect(positionalRange("<name> --kind generic|github")).toEqual([1, 1]);
    expect(positionalRange("<file.json | ->")).toEqual([1, 1]);
    expect(positionalRange("<file|folder>... [--format <f>]")).toEqual([1, INF]);
    expect(positionalRange("")).toEqual([0, 0]);
  });

  it("names a missing argument as the usage spells it", () => {
    expect(positionalNames('<id[@version]>... [--query "<q>"] [--as-of <time>]')).toEqual(["<id[@version]>"]);
    expect(positionalNames("<chunk> <key> [<value> | --add <n>]")).toEqual(["<chunk>", "<key>"]);
    for (const c of COMMANDS) for (const name of positionalNames(c.args)) expect(name, c.name).toMatch(/^<\S(.*\S)?>$/);
  });
});
