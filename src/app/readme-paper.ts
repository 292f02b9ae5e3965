/**
 * README -> paper association by the configured model (xKG, seed 003 App. C.2), the queue consumer
 * of `readme_paper` messages (queued after a GitHub ingest by src/app/intake/readme-queue.ts for the
 * README versions the rules linked to no paper). Per message, one model call: the App. C.2 prompt
 * over the repository's name and its README (cut to MAX_README_CHARS), answering a full title or
 * null (src/core/sources/readme-model.ts). The answer is accepted only when
 *   1. the README text the model was shown writes that title (normalised as aliases are), and
 *   2. it names a paper of the archive exactly as the rules' title edges are resolved: the chunk
 *      `paper:<title slug>` (paperIdentity), else a paper entity with the title as an alias;
 * then the README's next version carries the `implements` edge to that paper, the edge's context
 * naming the model (`model:<provider>:<model>`), as the rules' edge would (weight 1).
 *
 * What the model answered, and why it was taken or not, is the `readme_paper` annotation of the
 * README version it read (event id per version: a redelivery asks no model again) and a row of the
 * ingest log (origin `readme_paper`). A model outage or rate limit is retried with the queue's
 * backoff up to MAX_README_ATTEMPTS deliveries; every other failure is recorded and acknowledged.
 * The ingest that queued the message has already finished: nothing here can fail it, and the rules'
 * result stands whatever the model does.
 */
import { fail, ok, type Result } from "../core/errors";
import { paperIdentity } from "../core/formats/paper";
import { aliasKeys, normAlias } from "../core/ids";
import type { ModelFailureCode } from "../core/ports";
import { cutText } from "../core/proposals/propose";
import {
  MAX_README_CHARS,
  README_PAPER_SCHEMA,
  README_PAPER_SYSTEM,
  readmePaperAnswer,
  readmePaperPrompt,
  titleRefusal,
} from "../core/sources/readme-model";
import type { AppDeps } from "./deps";
import { modelName } from "./lib/proposals";
import { type QueueMessageLike, type ReadmePaperMessage, retryDelaySeconds } from "./lib/queue";
import { nextArtifact } from "./review/apply";

/** The annotation on the README version the model read: its answer and what became of it. */
export const README_PAPER_KEY = "readme_paper";
/** Deliveries of one message before a retryable model failure is recorded and acknowledged. */
export const MAX_README_ATTEMPTS = 3;
const RETRYABLE: ReadonlySet<ModelFailureCode> = new Set(["rate_limited", "unavailable"]);

export type ReadmeOutcome =
  | { status: "skipped"; reason: string }
  | { status: "retry"; reason: string }
  | {
      status: "linked" | "none" | "rejected" | "failed";
      model: string;
      title: string | null;
      paper?: string;
      version?: number;
      reason?: string;
    };

const eventIdOf = (m: ReadmePaperMessage) => `${README_PAPER_KEY}:${m.chunk}:v${m.version}`;

/** The archive's paper a title names, resolved as the rules' title edges are (intake/apply.ts), or null. */
async function archivePaper(d: AppDeps, archive: string, title: string): Promise<string | null> {
  const id = paperIdentity([], title)?.id;
  if (id) {
    const row = (await d.intake.world.chunksByIds(archive, [id])).get(id);
    if (row?.kind === "paper" && row.deprecatedAt === null) return id;
  }
  const key = normAlias(title);
  const hits = await d.intake.world.papersByAliases(archive, aliasKeys(title));
  return hits.find((h) => normAlias(h.key) === key)?.chunkId ?? null;
}

/** One message: ask the model about the README version it names, and link the paper when accepted. */
export async function linkReadme(d: AppDeps, m: ReadmePaperMessage, attempts: number): Promise<ReadmeOutcome> {
  const model = d.models.llm;
  if (!model) return { status: "skipped", reason: "no model configured" };
  const h = await d.stores.chunks.chunkHistory(m.archive, m.chunk);
  const v = h?.versions.find((x) => x.version === m.version);
  const latest = h?.versions[h.versions.length - 1];
  if (!h || !v || !latest) return { status: "skipped", reason: "the README version is gone" };
  if (h.chunk.deprecatedAt !== null) return { status: "skipped", reason: "the README is deprecated" };
  if (latest.version !== v.version) return { status: "skipped", reason: "a later README version exists" };
  if (!v.boundaries.includes("role:readme")) return { status: "skipped", reason: "not a README note" };
  if (v.edges.some((e) => e.type === "implements")) return { status: "skipped", reason: "already linked" };
  if (await d.stores.annotations.annotationByEventId(m.archive, eventIdOf(m)))
    return { status: "skipped", reason: "already asked" };
  const content = await d.kernel.contentOf(v.contentKey);
  if (content === null) throw new Error(`the content of ${m.chunk} v${m.version} could not be read`);
  const shown = cutText(content, MAX_README_CHARS);
  const repo = v.boundaries.find((b) => b.startsWith("repo:"))?.slice("repo:".length) ?? m.chunk;
  const name = modelName(model);
  const out = await model.structured({
    name: "readme_paper",
    description: "The full title of the paper this repository implements, or null.",
    schema: README_PAPER_SCHEMA,
    messages: [
      { role: "system", content: README_PAPER_SYSTEM },
      { role: "user", content: readmePaperPrompt(repo, shown) },
    ],
    maxOutputTokens: 200,
  });
  if (!out.ok) {
    if (RETRYABLE.has(out.error.code) && attempts < MAX_README_ATTEMPTS)
      return { status: "retry", reason: `${out.error.code}: ${out.error.message}` };
    return { status: "failed", model: name, title: null, reason: `${out.error.code}: ${out.error.message}` };
  }
  const answer = readmePaperAnswer(out.value);
  if (typeof answer === "string") return { status: "failed", model: name, title: null, reason: answer };
  if (answer.title === null) return { status: "none", model: name, title: null };
  const title = answer.title;
  const refused = titleRefusal(title, shown);
  if (refused) return { status: "rejected", model: name, title, reason: refused };
  const paper = await archivePaper(d, m.archive, title);
  if (!paper) return { status: "rejected", model: name, title, reason: "no paper of the archive has this title" };
  const next = await nextArtifact(d, m.archive, m.chunk, Math.max(d.clock.now(), v.validFrom + 1), (a) => {
    a.edges.push({ type: "implements", target: paper, weight: 1, context: `model:${name}: ${title}`.slice(0, 1000) });
    return ok(undefined);
  });
  if (!next.ok) return { status: "failed", model: name, title, paper, reason: next.error.message };
  const res = await d.kernel.ingest(m.archive, [next.value]);
  if (!res.ok) return { status: "failed", model: name, title, paper, reason: res.error.message };
  return { status: "linked", model: name, title, paper, version: res.value.results[0]?.version ?? m.version + 1 };
}

/** The annotation and the ingest-log row of an outcome (skips and retries record nothing). */
async function record(d: AppDeps, m: ReadmePaperMessage, o: ReadmeOutcome, started: number): Promise<void> {
  if (o.status === "skipped" || o.status === "retry") return;
  const now = d.clock.now();
  const value = {
    status: o.status,
    model: o.model,
    title: o.title,
    ...(o.paper ? { paper: o.paper } : {}),
    ...(o.version !== undefined ? { linked_version: o.version } : {}),
    ...(o.reason ? { reason: o.reason } : {}),
  };
  await d.stores.annotations.appendAnnotation({
    archiveId: m.archive,
    chunkId: m.chunk,
    version: m.version,
    key: README_PAPER_KEY,
    op: "set",
    value,
    actor: `model:${o.model}`,
    reason: o.status === "linked" ? `the model named ${o.paper}` : `the model's answer: ${o.status}`,
    at: now,
    recordedAt: now,
    eventId: eventIdOf(m),
  });
  await d.stores.log.appendLog({
    archiveId: m.archive,
    origin: README_PAPER_KEY,
    ref: `${m.chunk}@v${m.version}`.slice(0, 300),
    status: o.status === "failed" ? "error" : "ok",
    // `chunk` is what forgetting the chunk finds the row by.
    counts: { chunk: m.chunk, version: m.version, ...value },
    error: o.status === "failed" ? (o.reason ?? null) : null,
    at: now,
    durationMs: Date.now() - started,
  });
}

const msgOf = (e: unknown) => (e instanceof Error ? e.message : String(e)).slice(0, 1000);

export function readmePaperUseCases(d: AppDeps) {
  /** Ask the model about one README version now (what the consumer does per message). */
  const link = async (m: ReadmePaperMessage, attempts = 1): Promise<Result<ReadmeOutcome>> => {
    try {
      const started = Date.now();
      const o = await linkReadme(d, m, attempts);
      await record(d, m, o, started);
      return ok(o);
    } catch (e) {
      return fail("unavailable", `readme_paper ${m.chunk}@v${m.version}: ${msgOf(e)}`);
    }
  };
  return {
    link,
    /** The queue consumer of `readme_paper` messages, one at a time. */
    async consume(messages: readonly QueueMessageLike[]): Promise<void> {
      for (const m of messages) {
        const msg = m.body as ReadmePaperMessage;
        const r = await link(msg, m.attempts);
        if (r.ok && r.value.status === "retry") m.retry({ delaySeconds: retryDelaySeconds(m.attempts) });
        else if (!r.ok && m.attempts < MAX_README_ATTEMPTS) m.retry({ delaySeconds: retryDelaySeconds(m.attempts) });
        else {
          if (!r.ok) console.error(r.error.message);
          m.ack();
        }
      }
    },
  };
}
