/**
 * ProjectGuard's brief and render on scripted project histories, through the public API.
 *
 * A seeded generator writes 8 projects (one archive each, 10-20 steps a day apart) in 8 domains, each
 * with 3 aspects (cache eviction, retry policy, ...). Per step it may propose a design or decision
 * (then commit it, reject it, or leave it proposed), revise a committed record (a new version with a
 * new value), supersede one (a new record, the old one deprecated with `by`), and push code: a module
 * per aspect that `implements` the aspect's current decision, a test module that `tests` it, and an
 * API module that `depends-on` the others. Every version's content carries a unique marker word, so
 * text of a superseded version, or of a rejected or uncommitted record, is found wherever it appears.
 * Then 1-3 requests per step, each about one aspect (a third of them about two), are briefed as of
 * that step.
 *
 * Ground truth comes from the generator's own bookkeeping, by ProjectGuard's definitions: relevant
 * commitments = the aspect's committed, live records; a module implementing one is to revise when a
 * commitment it implements has a version newer than the module's, else to preserve when another
 * module depends on it or tests it.
 *
 * Reported: stale items per briefed record (a briefed record that is superseded, rejected or
 * uncommitted, or a marker word of such a version anywhere in the brief), for the brief and for a version-blind baseline in the same run (Okapi BM25 over every
 * version of every record, statuses ignored, filled to the same budget); commitment recall (both);
 * preserve / revise precision and recall; anchors returned that verify; the budget (largest brief
 * tokens ÷ budget); and the render of each final state at a tight and a generous budget.
 */
import { PaperGuruClient } from "../../src/client";
import { countTokens } from "../../src/core/text/tokenizer";
import { type Doc, winkBm25 } from "./baselines";
import { harnessFetch, type Server } from "./server";
import { rng } from "./synthetic";

const DOMAINS: Array<{ name: string; aspects: Array<{ key: string; topic: string; fn: string; values: string[] }> }> = [
  {
    name: "edge cache",
    aspects: [
      {
        key: "eviction",
        topic: "cache eviction policy",
        fn: "evictEntries",
        values: ["least recently used", "least frequently used", "adaptive replacement", "random eviction"],
      },
      {
        key: "ttl",
        topic: "cache entry time to live",
        fn: "expireEntries",
        values: ["five minutes", "one hour", "one day", "no expiry"],
      },
      {
        key: "sizing",
        topic: "cache memory size limit",
        fn: "sizeLimit",
        values: ["64 megabytes", "128 megabytes", "256 megabytes", "one gigabyte"],
      },
    ],
  },
  {
    name: "job queue",
    aspects: [
      {
        key: "retries",
        topic: "job retry policy",
        fn: "retryJob",
        values: ["three retries", "five retries with backoff", "retries until deadline", "no retries"],
      },
      {
        key: "ordering",
        topic: "job ordering guarantee",
        fn: "orderJobs",
        values: ["first in first out", "priority order", "per key ordering", "best effort"],
      },
      {
        key: "deadletter",
        topic: "dead letter handling",
        fn: "deadLetter",
        values: ["dead letter queue", "alert and drop", "park for replay", "retry forever"],
      },
    ],
  },
  {
    name: "authentication",
    aspects: [
      {
        key: "tokens",
        topic: "access token format",
        fn: "issueToken",
        values: ["opaque bearer keys", "signed JWT", "PASETO tokens", "session cookies"],
      },
      {
        key: "hashing",
        topic: "password hashing scheme",
        fn: "hashPassword",
        values: ["bcrypt", "scrypt", "argon2id", "PBKDF2"],
      },
      {
        key: "lockout",
        topic: "login lockout rule",
        fn: "lockAccount",
        values: ["five failures", "ten failures", "exponential delay", "captcha after three"],
      },
    ],
  },
  {
    name: "search service",
    aspects: [
      {
        key: "ranking",
        topic: "search ranking function",
        fn: "rankResults",
        values: ["BM25", "dense retrieval", "hybrid fusion", "learning to rank"],
      },
      {
        key: "tokenizer",
        topic: "search tokenizer",
        fn: "tokenize",
        values: ["whitespace split", "Porter stemming", "word pieces", "character trigrams"],
      },
      {
        key: "pagination",
        topic: "search result pagination",
        fn: "pageResults",
        values: ["offset pages", "cursor pages", "search after keys", "infinite scroll"],
      },
    ],
  },
  {
    name: "billing",
    aspects: [
      {
        key: "invoicing",
        topic: "invoice schedule",
        fn: "issueInvoice",
        values: ["monthly invoices", "weekly invoices", "usage threshold invoices", "annual invoices"],
      },
      {
        key: "currency",
        topic: "currency rounding rule",
        fn: "roundAmount",
        values: ["banker rounding", "round half up", "truncate to cents", "round per line"],
      },
      {
        key: "dunning",
        topic: "failed payment dunning",
        fn: "retryPayment",
        values: ["three reminders", "suspend after a week", "grace period of a month", "immediate suspension"],
      },
    ],
  },
  {
    name: "observability",
    aspects: [
      {
        key: "logging",
        topic: "log format",
        fn: "formatLog",
        values: ["JSON lines", "logfmt", "plain text", "OpenTelemetry records"],
      },
      {
        key: "sampling",
        topic: "trace sampling rate",
        fn: "sampleTrace",
        values: ["one percent", "ten percent", "tail sampling", "all traces"],
      },
      {
        key: "retention",
        topic: "metrics retention period",
        fn: "retainMetrics",
        values: ["fifteen days", "ninety days", "one year", "forever"],
      },
    ],
  },
  {
    name: "storage",
    aspects: [
      {
        key: "engine",
        topic: "storage engine choice",
        fn: "openStore",
        values: ["PostgreSQL", "SQLite", "DynamoDB", "FoundationDB"],
      },
      {
        key: "backups",
        topic: "backup schedule",
        fn: "backupStore",
        values: ["nightly snapshots", "hourly snapshots", "continuous archiving", "weekly dumps"],
      },
      {
        key: "migrations",
        topic: "schema migration process",
        fn: "migrateSchema",
        values: ["forward only migrations", "reversible migrations", "expand and contract", "blue green copies"],
      },
    ],
  },
  {
    name: "notifications",
    aspects: [
      {
        key: "channels",
        topic: "notification channels",
        fn: "sendNotice",
        values: ["email only", "email and push", "push and SMS", "in-app inbox"],
      },
      {
        key: "batching",
        topic: "notification batching",
        fn: "batchNotices",
        values: ["immediate delivery", "hourly digest", "daily digest", "quiet hours"],
      },
      {
        key: "templates",
        topic: "notification templates",
        fn: "renderNotice",
        values: ["Mustache templates", "MJML layouts", "plain strings", "localized bundles"],
      },
    ],
  },
];

const MARKERS = (
  "amber birch cedar delta ember fjord garnet harbor indigo juniper kestrel lagoon maple nimbus onyx " +
  "pepper quartz raven saffron tundra umber violet willow xenon yarrow zephyr"
).split(" ");

type Status = "proposed" | "committed" | "rejected";

interface RecordState {
  id: string;
  kind: "design" | "decision";
  aspect: string;
  status: Status;
  deprecated: boolean;
  /** Versions in order: valid_from, marker word. */
  versions: Array<{ at: number; marker: string }>;
}

interface ModuleState {
  id: string;
  aspect: string | null;
  /** valid_from of its current version. */
  at: number;
  implementsIds: string[];
  markers: string[];
}

export interface ProjectGuardEval {
  projects: number;
  steps: number;
  briefs: number;
  budgetTokens: number;
  brief: {
    staleShare: number;
    staleItems: number;
    items: number;
    commitmentRecall: number;
    /** Briefed records that are the asked aspect's live commitments. */
    commitmentPrecision: number;
    preserve: { precision: number; recall: number; predicted: number; expected: number };
    revise: { precision: number; recall: number; predicted: number; expected: number };
    anchors: number;
    anchorsVerified: number;
    maxTokensOverBudget: number;
  };
  baseline: { staleShare: number; staleItems: number; items: number; commitmentRecall: number };
  render: {
    tight: { budget: number; maxTokens: number; withOmitted: number; staleItems: number };
    generous: {
      budget: number;
      maxTokens: number;
      omitted: number;
      staleItems: number;
      commitmentsRendered: number;
      commitmentsLive: number;
    };
  };
  ms: number;
}

const DAY = 86_400_000;
const iso = (t: number) => new Date(t).toISOString();

export async function projectGuardEval(
  server: Server,
  opts: { projects?: number; seed?: number } = {},
): Promise<ProjectGuardEval> {
  const t0 = performance.now();
  const admin = new PaperGuruClient(server.url, server.adminKey, { fetch: harnessFetch });
  const r = rng(opts.seed ?? 20251125);
  const pick = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)] as T;
  const BUDGET = 1200;
  const tally = {
    staleItems: 0,
    items: 0,
    recallHit: 0,
    recallAll: 0,
    bStale: 0,
    bItems: 0,
    bHit: 0,
    pre: { tp: 0, pred: 0, exp: 0 },
    rev: { tp: 0, pred: 0, exp: 0 },
    anchors: 0,
    verified: 0,
    maxOver: 0,
    briefs: 0,
    steps: 0,
    briefed: 0,
  };
  const render = {
    tight: { budget: 400, maxTokens: 0, withOmitted: 0, staleItems: 0 },
    generous: { budget: 20_000, maxTokens: 0, omitted: 0, staleItems: 0, commitmentsRendered: 0, commitmentsLive: 0 },
  };
  const projects = opts.projects ?? DOMAINS.length;
  let markerSeq = 0;
  const nextMarker = () => `${MARKERS[markerSeq % MARKERS.length]}${Math.floor(markerSeq++ / MARKERS.length)}`;

  for (let p = 0; p < projects; p++) {
    const domain = DOMAINS[p % DOMAINS.length] as (typeof DOMAINS)[number];
    const id = `eval-pg-${p}-${Date.now().toString(36)}`;
    const pg = admin.withKey(
      (await admin.createArchive({ id, name: `ProjectGuard history: ${domain.name}` })).key.secret,
    );
    const records = new Map<string, RecordState>();
    const modules = new Map<string, ModuleState>();
    const testsOf = new Set<string>(); // modules something tests
    const dependedOn = new Set<string>();
    const allVersions: Array<Doc & { record: string; version: number }> = [];
    let counter = 0;
    const start = Date.UTC(2025, 0, 6);
    const steps = 10 + Math.floor(r() * 11);
    tally.steps += steps;

    const valueAt = (aspect: (typeof domain.aspects)[number], v: number) =>
      aspect.values[v % aspect.values.length] as string;
    const text = (kind: "design" | "decision", aspect: (typeof domain.aspects)[number], marker: string, v: number) =>
      kind === "design"
        ? `Design (${marker}): the ${aspect.topic} of the ${domain.name} is ${valueAt(aspect, v)}. Every component follows it; changing it needs a new design.`
        : `Decision (${marker}): implement the ${aspect.topic} as ${valueAt(aspect, v)} in ${aspect.fn}, configured in one place and covered by tests.`;

    const write = async (rec: RecordState, aspect: (typeof domain.aspects)[number], at: number, parent?: string) => {
      const marker = nextMarker();
      const v = rec.versions.length + counter++;
      const title = `${rec.kind === "design" ? "Design" : "Decision"}: ${aspect.topic}`;
      const content = text(rec.kind, aspect, marker, v);
      const res = await pg.ingest(id, {
        artifacts: [
          {
            id: rec.id,
            kind: rec.kind,
            title,
            content,
            valid_from: iso(at),
            ...(parent ? { edges: [{ type: "part-of" as const, target: parent }] } : {}),
          },
        ],
      });
      rec.versions.push({ at, marker });
      allVersions.push({
        id: `${rec.id}@${res.results[0]?.version}`,
        title,
        text: content,
        record: rec.id,
        version: rec.versions.length,
      });
    };
    const setStatus = async (rec: RecordState, status: Status, at: number) => {
      rec.status = status;
      await pg.annotate(id, rec.id, { key: "status", value: status, at: iso(at) });
    };
    const live = (rec: RecordState) => rec.status === "committed" && !rec.deprecated;
    const decisionOf = (aspect: string) =>
      [...records.values()].find((x) => x.kind === "decision" && x.aspect === aspect && live(x));

    for (let s = 0; s < steps; s++) {
      // Each event of a step one minute after the previous one; requests come 12 hours later.
      let minute = 0;
      const base = start + s * DAY + 3_600_000;
      const next = () => base + 60_000 * minute++;
      // 1-2 record events per step.
      for (let e = 0; e < 1 + Math.floor(r() * 2); e++) {
        const aspect = pick(domain.aspects);
        const design = records.get(`design:${aspect.key}`);
        const roll = r();
        const at = next();
        if (!design) {
          const rec: RecordState = {
            id: `design:${aspect.key}`,
            kind: "design",
            aspect: aspect.key,
            status: "proposed",
            deprecated: false,
            versions: [],
          };
          records.set(rec.id, rec);
          await write(rec, aspect, at);
          await setStatus(rec, r() < 0.8 ? "committed" : "proposed", next());
        } else if (roll < 0.35) {
          // A new decision under the design: committed, rejected or left proposed.
          const rec: RecordState = {
            id: `decision:${aspect.key}-${counter}`,
            kind: "decision",
            aspect: aspect.key,
            status: "proposed",
            deprecated: false,
            versions: [],
          };
          records.set(rec.id, rec);
          await write(rec, aspect, at, design.id);
          const x = r();
          const prev = decisionOf(aspect.key);
          if (x < 0.6) {
            await setStatus(rec, "committed", next());
            // The earlier committed decision of the aspect is superseded by this one.
            if (prev && prev.id !== rec.id) {
              await pg.deprecate(id, { id: prev.id, by: rec.id, at: iso(next()), reason: "superseded" });
              prev.deprecated = true;
            }
          } else if (x < 0.85) await setStatus(rec, "rejected", next());
          else await setStatus(rec, "proposed", next());
        } else if (roll < 0.7) {
          // Revise a live record (design or decision): a new version with a new value.
          const target = pick([...records.values()].filter((x) => x.aspect === aspect.key && live(x)));
          if (target) await write(target, aspect, at, target.kind === "decision" ? design.id : undefined);
        } else if (design.status === "proposed") await setStatus(design, "committed", at);
      }
      // Code pushes: the aspect's module follows its current decision; tests and the API module.
      const at = next();
      if (r() < 0.5) {
        const aspect = pick(domain.aspects);
        const decision = decisionOf(aspect.key);
        const design = records.get(`design:${aspect.key}`);
        if (decision && design) {
          const mid = `repo/src/${aspect.key}.ts`;
          const marker = nextMarker();
          await pg.ingest(id, {
            artifacts: [
              {
                id: mid,
                kind: "code_unit",
                title: `${aspect.key}.ts`,
                content: `// ${marker}: ${aspect.topic}\nexport function ${aspect.fn}(input: string[], limit: number): string[] {\n  return input.slice(0, limit);\n}\n`,
                valid_from: iso(at),
                edges: [
                  { type: "implements", target: decision.id },
                  { type: "implements", target: design.id },
                ],
              },
            ],
          });
          modules.set(mid, {
            id: mid,
            aspect: aspect.key,
            at,
            implementsIds: [decision.id, design.id],
            markers: [marker],
          });
          if (r() < 0.5 && !testsOf.has(mid)) {
            await pg.ingest(id, {
              artifacts: [
                {
                  id: `repo/test/${aspect.key}.test.ts`,
                  kind: "code_unit",
                  title: `${aspect.key}.test.ts`,
                  content: `import { ${aspect.fn} } from "../src/${aspect.key}";\nexport function check${aspect.key}(): boolean {\n  return ${aspect.fn}(["a"], 1).length === 1;\n}\n`,
                  valid_from: iso(at),
                  edges: [{ type: "tests", target: mid }],
                },
              ],
            });
            testsOf.add(mid);
          }
          if (r() < 0.4) {
            const deps = [...modules.keys()].filter((m) => m.startsWith("repo/src/"));
            await pg.ingest(id, {
              artifacts: [
                {
                  id: "repo/src/api.ts",
                  kind: "code_unit",
                  title: "api.ts",
                  content: `export function handle(path: string): string {\n  return path;\n}\n// uses ${deps.join(", ")}\n`,
                  valid_from: iso(at),
                  edges: deps.map((d) => ({ type: "depends-on" as const, target: d })),
                },
              ],
            });
            for (const d of deps) dependedOn.add(d);
          }
        }
      }
      // Requests: 1-3 about aspects, briefed as of this step.
      // wink needs 3 documents to build an index; with fewer, every one is a hit.
      const bm25 =
        allVersions.length >= 3 ? await winkBm25(allVersions) : { search: () => allVersions.map((x) => x.id) };
      for (let q = 0; q < 1 + Math.floor(r() * 3); q++) {
        const aspect = pick(domain.aspects);
        // A third of the requests are about two aspects at once.
        const second = r() < 1 / 3 ? pick(domain.aspects.filter((x) => x !== aspect)) : null;
        const request =
          pick([
            `Change the ${aspect.topic} of the ${domain.name} and update ${aspect.fn}.`,
            `Why does ${aspect.fn} behave this way? Explain the ${aspect.topic}.`,
            `Add a test around the ${aspect.topic} before we touch ${aspect.fn}.`,
          ]) + (second ? ` Also revisit the ${second.topic}.` : "");
        const asked = new Set([aspect.key, ...(second ? [second.key] : [])]);
        const brief = await pg.brief(id, { request, as_of: iso(base + 12 * 3_600_000), budget_tokens: BUDGET });
        tally.briefs++;
        tally.maxOver = Math.max(tally.maxOver, brief.tokens / BUDGET);
        const relevant = [...records.values()].filter((x) => asked.has(x.aspect) && live(x) && x.versions.length);
        const current = new Set(relevant.map((x) => x.id));
        const ids = brief.commitments.map((c) => c.id);
        // Stale = a briefed record that is not live, or any marker word of a version that is not a
        // live record's latest.
        const liveRecords = [...records.values()].filter(live);
        const liveMarkers = new Set(liveRecords.map((x) => x.versions.at(-1)?.marker));
        const json = JSON.stringify(brief);
        const staleMarkers = [...records.values()]
          .flatMap((x) => x.versions.map((v) => v.marker))
          .filter((m) => !liveMarkers.has(m) && new RegExp(`\\b${m}\\b`).test(json));
        const staleIds = ids.filter((x) => !liveRecords.some((l) => l.id === x));
        tally.staleItems += staleIds.length + staleMarkers.length;
        tally.items += ids.length;
        tally.recallAll += current.size;
        tally.recallHit += ids.filter((x) => current.has(x)).length;
        tally.briefed += ids.length;
        // Modules implementing the relevant commitments, by the rules.
        const expRevise = new Set<string>();
        const expPreserve = new Set<string>();
        for (const m of modules.values()) {
          if (!m.implementsIds.some((x) => current.has(x))) continue;
          const newer = m.implementsIds.some((x) => {
            const rec = records.get(x);
            return rec ? rec.versions.some((v) => v.at > m.at) : false;
          });
          if (newer) expRevise.add(m.id);
          else if (dependedOn.has(m.id) || testsOf.has(m.id)) expPreserve.add(m.id);
        }
        const score = (pred: string[], exp: Set<string>, into: { tp: number; pred: number; exp: number }) => {
          into.pred += pred.length;
          into.exp += exp.size;
          into.tp += pred.filter((x) => exp.has(x)).length;
        };
        score(
          brief.revise.map((m) => m.id),
          expRevise,
          tally.rev,
        );
        score(
          brief.preserve.map((m) => m.id),
          expPreserve,
          tally.pre,
        );
        if (brief.constraints.length) {
          const v = await pg.verify(id, { anchors: brief.constraints.map((c) => c.anchor) });
          tally.anchors += v.results.length;
          tally.verified += v.results.filter((x) => x.verified).length;
        }
        // Version-blind baseline: BM25 over every version, filled to the same budget.
        let used = 0;
        const got: Array<(typeof allVersions)[number]> = [];
        for (const hit of bm25.search(request, 50)) {
          const doc = allVersions.find((x) => x.id === hit);
          if (!doc) continue;
          const cost = countTokens(`${doc.title}\n${doc.text}`);
          if (used + cost > BUDGET) break;
          used += cost;
          got.push(doc);
        }
        for (const doc of got) {
          const rec = records.get(doc.record);
          const latest = rec && live(rec) && doc.version === rec.versions.length;
          tally.bItems++;
          if (!latest) tally.bStale++;
        }
        tally.bHit += [...current].filter((x) =>
          got.some((g) => g.record === x && g.version === records.get(x)?.versions.length),
        ).length;
      }
    }
    // Render of the final state.
    const finalAt = start + steps * DAY;
    const liveRecords = [...records.values()].filter(live);
    const liveMarkers = new Set(liveRecords.map((x) => x.versions.at(-1)?.marker));
    const staleIn = (json: string) =>
      [...records.values()]
        .flatMap((x) => x.versions.map((v) => v.marker))
        .filter((m) => !liveMarkers.has(m) && new RegExp(`\\b${m}\\b`).test(json)).length;
    const tight = await pg.render(id, { as_of: iso(finalAt), budget_tokens: render.tight.budget });
    render.tight.maxTokens = Math.max(render.tight.maxTokens, tight.tokens);
    if (tight.omitted.length) render.tight.withOmitted++;
    render.tight.staleItems += staleIn(JSON.stringify(tight));
    const full = await pg.render(id, { as_of: iso(finalAt), budget_tokens: render.generous.budget });
    render.generous.maxTokens = Math.max(render.generous.maxTokens, full.tokens);
    render.generous.omitted += full.omitted.length;
    render.generous.staleItems += staleIn(JSON.stringify(full));
    const rendered = new Set([...full.designs, ...full.decisions].map((x) => x.id));
    render.generous.commitmentsLive += liveRecords.length;
    render.generous.commitmentsRendered += liveRecords.filter((x) => rendered.has(x.id)).length;
  }
  const ratio = (a: number, b: number) => (b ? a / b : 0);
  return {
    projects,
    steps: tally.steps,
    briefs: tally.briefs,
    budgetTokens: BUDGET,
    brief: {
      staleShare: ratio(tally.staleItems, tally.items),
      staleItems: tally.staleItems,
      items: tally.items,
      commitmentRecall: ratio(tally.recallHit, tally.recallAll),
      commitmentPrecision: ratio(tally.recallHit, tally.briefed),
      preserve: {
        precision: ratio(tally.pre.tp, tally.pre.pred),
        recall: ratio(tally.pre.tp, tally.pre.exp),
        predicted: tally.pre.pred,
        expected: tally.pre.exp,
      },
      revise: {
        precision: ratio(tally.rev.tp, tally.rev.pred),
        recall: ratio(tally.rev.tp, tally.rev.exp),
        predicted: tally.rev.pred,
        expected: tally.rev.exp,
      },
      anchors: tally.anchors,
      anchorsVerified: tally.verified,
      maxTokensOverBudget: tally.maxOver,
    },
    baseline: {
      staleShare: ratio(tally.bStale, tally.bItems),
      staleItems: tally.bStale,
      items: tally.bItems,
      commitmentRecall: ratio(tally.bHit, tally.recallAll),
    },
    render,
    ms: Math.round(performance.now() - t0),
  };
}
