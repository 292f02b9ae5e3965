/**
 * Ask and see why: one query, a budget and an as_of time chosen on a slider over the archive's
 * change times. Cards (claims, assumptions, anchors; what appeared, changed version or disappeared
 * since the previous position) beside the route (mentions, seeds, diffusion mass, router steps, the
 * graph, per-expert scores). Opening an anchor reads that exact version and verifies the span.
 */
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import type { Anchor, Card, ChunkDetail, ContextResponse, RouteResponse, VerifyResult } from "../client";
import { describeError, routeWithTrace, type Session, shortTime, traceOf } from "./api";
import { RouteGraph } from "./graph";
import { EXPERTS } from "./route-model";
import { Badge, LinkButton, Table } from "./ui";

interface Answer {
  context: ContextResponse;
  route: RouteResponse;
  /** chunk -> version of the previous answer (null: first answer). */
  before: Map<string, number> | null;
}

/** What moved between two answers: appeared, changed version, disappeared. */
export function changes(before: Map<string, number> | null, cards: Card[]) {
  const now = new Map(cards.map((c) => [c.artifact_id, c.version]));
  const appeared = new Set<string>();
  const changed = new Map<string, number>();
  if (before)
    for (const [id, v] of now) {
      const was = before.get(id);
      if (was === undefined) appeared.add(id);
      else if (was !== v) changed.set(id, was);
    }
  const gone = before ? [...before].filter(([id]) => !now.has(id)) : [];
  return { appeared, changed, gone };
}

function addTimes(into: Set<number>, ...isos: Array<string | null | undefined>) {
  for (const t of isos) if (t) into.add(Date.parse(t));
}

export function AskScreen({
  session,
  theme,
  onChunk,
}: {
  session: Session;
  theme: string;
  onChunk: (id: string) => void;
}) {
  const { client, archive } = session;
  const [query, setQuery] = useState("");
  const [budget, setBudget] = useState(1200);
  const [times, setTimes] = useState<number[]>([]);
  /** Index into times, or times.length for "now". */
  const [pos, setPos] = useState<number | null>(null);
  const [answer, setAnswer] = useState<Answer | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [anchor, setAnchor] = useState<Anchor | null>(null);
  const details = useRef(new Map<string, ChunkDetail>());
  const asked = useRef<string | null>(null);

  // The slider's stops: every version start and end and deprecation seen on the first page of
  // chunks and in the details of the chunks the answers cite.
  useEffect(() => {
    const seen = new Set<number>();
    client
      .chunks(archive.id, { limit: 200 })
      .then((p) => {
        for (const c of p.chunks) addTimes(seen, c.valid_from, c.valid_to, c.deprecated_at);
        setTimes([...seen].filter(Number.isFinite).sort((a, b) => a - b));
      })
      .catch((e: unknown) => setError(describeError(e)));
  }, [client, archive.id]);

  const slot = pos ?? times.length;
  const asOf = slot >= times.length ? undefined : new Date(times[slot] as number).toISOString();

  const run = async (q: string, at: string | undefined, keepPrevious: boolean) => {
    setBusy(true);
    setError(null);
    try {
      const [context, route] = await Promise.all([
        client.context(archive.id, { query: q, budget_tokens: budget, ...(at ? { as_of: at } : {}) }),
        routeWithTrace(client, archive.id, { query: q, limit: 32, ...(at ? { as_of: at } : {}) }),
      ]);
      setAnswer((prev) => ({
        context,
        route,
        before: keepPrevious && prev ? new Map(prev.context.cards.map((c) => [c.artifact_id, c.version])) : null,
      }));
      // Learn the cited chunks' version times, so the slider can stop at each of them.
      const missing = context.cards.map((c) => c.artifact_id).filter((id) => !details.current.has(id));
      const got = await Promise.all(missing.slice(0, 16).map((id) => client.chunk(archive.id, id).catch(() => null)));
      const extra = new Set<number>();
      for (const d of got) {
        if (!d) continue;
        details.current.set(d.id, d);
        for (const v of d.versions) addTimes(extra, v.valid_from, v.valid_to);
        addTimes(extra, d.deprecated_at);
      }
      if (extra.size)
        setTimes((old) => {
          const merged = [...new Set([...old, ...extra])].filter(Number.isFinite).sort((a, b) => a - b);
          if (merged.length === old.length) return old;
          // Keep the slider on the same instant when stops are inserted before it.
          if (at) setPos(merged.indexOf(Date.parse(at)));
          return merged;
        });
    } catch (e) {
      setError(describeError(e));
    } finally {
      setBusy(false);
    }
  };

  const onSubmit = (e: Event) => {
    e.preventDefault();
    if (!query.trim()) return;
    asked.current = query.trim();
    void run(query.trim(), asOf, false);
  };

  // Moving the slider re-asks the last question as of the new time (after 250 ms without moving).
  useEffect(() => {
    if (!asked.current) return;
    const q = asked.current;
    const t = setTimeout(() => void run(q, asOf, true), 250);
    return () => clearTimeout(t);
  }, [asOf]);

  const moved = useMemo(() => (answer ? changes(answer.before, answer.context.cards) : null), [answer]);

  return (
    <div class="ask">
      <AskForm
        query={query}
        onQuery={setQuery}
        budget={budget}
        onBudget={setBudget}
        busy={busy}
        onSubmit={onSubmit}
        asOf={asOf}
        stops={times.length}
        slot={slot}
        onSlot={setPos}
      />
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {answer && moved && (
        <div class="split">
          <CardsPanel
            context={answer.context}
            moved={moved}
            details={details.current}
            onAnchor={setAnchor}
            onChunk={onChunk}
          />
          <RoutePanel route={answer.route} theme={theme} onChunk={onChunk} />
        </div>
      )}
      {anchor && <AnchorView session={session} anchor={anchor} onClose={() => setAnchor(null)} />}
    </div>
  );
}

/** The query, the budget, the Ask button and the as-of slider (`slot` of `stops`; `stops` is "now"). */
function AskForm(props: {
  query: string;
  onQuery: (q: string) => void;
  budget: number;
  onBudget: (b: number) => void;
  busy: boolean;
  onSubmit: (e: Event) => void;
  asOf: string | undefined;
  stops: number;
  slot: number;
  onSlot: (pos: number) => void;
}) {
  const { query, budget, busy, asOf, slot } = props;
  return (
    <form class="ask-form" onSubmit={props.onSubmit} aria-label="Ask the archive">
      <label class="grow">
        Query
        <input
          name="query"
          type="search"
          value={query}
          onInput={(e) => props.onQuery(e.currentTarget.value)}
          placeholder="Which damping do we use?"
          required
        />
      </label>
      <label>
        Budget (tokens)
        <input
          name="budget"
          type="number"
          min={50}
          max={200000}
          step={50}
          value={budget}
          onInput={(e) => props.onBudget(Number(e.currentTarget.value) || 1200)}
        />
      </label>
      <button type="submit" disabled={busy}>
        {busy ? "Asking…" : "Ask"}
      </button>
      <label class="slider">
        <span>
          as of <output name="as-of">{asOf ? shortTime(asOf) : "now"}</output>
        </span>
        <input
          name="as_of"
          type="range"
          min={0}
          max={props.stops}
          step={1}
          value={slot}
          aria-valuetext={asOf ?? "now"}
          onInput={(e) => props.onSlot(Number(e.currentTarget.value))}
        />
      </label>
    </form>
  );
}

/** The answer's cards, what disappeared since the previous answer, and the skipped chunks. */
function CardsPanel(props: {
  context: ContextResponse;
  moved: ReturnType<typeof changes>;
  details: Map<string, ChunkDetail>;
  onAnchor: (a: Anchor) => void;
  onChunk: (id: string) => void;
}) {
  const { context, moved, details } = props;
  return (
    <section aria-labelledby="cards-h" class="panel">
      <h2 id="cards-h">
        Cards <span class="muted">as of {shortTime(context.as_of)}</span>
      </h2>
      <p class="muted">
        {context.cards.length} cards, {context.budget.cards} of {context.budget.total} tokens (
        {context.budget.tokenizer})
      </p>
      {moved.gone.length > 0 && (
        <p class="gone" data-testid="gone">
          Disappeared: {moved.gone.map(([id, v]) => `${id} (v${v})`).join(", ")}
        </p>
      )}
      {context.cards.length === 0 && <p class="muted">No card fits this query at this time.</p>}
      <ol class="cards">
        {context.cards.map((c) => (
          <CardView
            key={c.artifact_id}
            card={c}
            appeared={moved.appeared.has(c.artifact_id)}
            was={moved.changed.get(c.artifact_id)}
            versions={details.get(c.artifact_id)?.versions.length}
            onAnchor={props.onAnchor}
            onChunk={props.onChunk}
          />
        ))}
      </ol>
      {context.skipped.length > 0 && (
        <details>
          <summary>{context.skipped.length} skipped</summary>
          <ul>
            {context.skipped.map((s) => (
              <li key={s.chunk}>
                {s.chunk}: {s.reason}
              </li>
            ))}
          </ul>
        </details>
      )}
    </section>
  );
}

function CardView(props: {
  card: Card;
  appeared: boolean;
  was: number | undefined;
  versions: number | undefined;
  onAnchor: (a: Anchor) => void;
  onChunk: (id: string) => void;
}) {
  const { card } = props;
  return (
    <li class="card" data-chunk={card.artifact_id} data-version={card.version}>
      <div class="card-head">
        <LinkButton onClick={() => props.onChunk(card.artifact_id)} label={`Open chunk ${card.artifact_id}`}>
          {card.title || card.artifact_id}
        </LinkButton>
        <Badge>{card.kind}</Badge>
        <Badge kind="version">
          v{card.version}
          {props.versions ? ` of ${props.versions}` : ""}
        </Badge>
        {props.appeared && <Badge kind="new">appeared</Badge>}
        {props.was !== undefined && <Badge kind="changed">was v{props.was}</Badge>}
      </div>
      <p class="muted mono">{card.artifact_id}</p>
      {/* claim_boundary is the card's claim: the source's one statement that best answers the query. */}
      <p class="claim" data-testid="claim">
        {card.claim_boundary || <span class="muted">No claim: the source had no prose sentence to quote.</span>}
      </p>
      {/* logic_sketch: the next sentences, how the source supports the claim. */}
      {card.logic_sketch && (
        <p class="sketch" data-testid="sketch">
          <span class="field">Logic sketch</span> {card.logic_sketch}
        </p>
      )}
      {card.assumptions.length > 0 && (
        <ul class="assumptions" aria-label="Assumptions">
          {card.assumptions.map((a) => (
            <li key={a}>{a}</li>
          ))}
        </ul>
      )}
      <ul class="anchors" aria-label="Anchors">
        {card.anchored_spans.map((a) => (
          <li key={`${a.start}-${a.end}`}>
            <button type="button" class="anchor" onClick={() => props.onAnchor(a)}>
              v{a.version} [{a.start}, {a.end}) “{a.snippet.length > 80 ? `${a.snippet.slice(0, 79)}…` : a.snippet}”
            </button>
          </li>
        ))}
      </ul>
    </li>
  );
}

/** The exact version's content around the span, the span highlighted, and the server's verdict. */
function AnchorView({ session, anchor, onClose }: { session: Session; anchor: Anchor; onClose: () => void }) {
  const { client, archive } = session;
  const [text, setText] = useState<{ start: number; text: string; chars: number } | null>(null);
  const [verdict, setVerdict] = useState<VerifyResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const head = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    head.current?.focus();
    const from = Math.max(0, anchor.start - 4000);
    Promise.all([
      client.content(archive.id, anchor.artifact_id, {
        version: anchor.version,
        start: from,
        max_chars: anchor.end - from + 4000,
      }),
      client.verify(archive.id, { anchors: [anchor] }),
    ]).then(
      ([slice, v]) => {
        setText({ start: slice.start, text: (slice as { text?: string }).text ?? "", chars: slice.content_chars });
        setVerdict(v.results[0] ?? null);
      },
      (e: unknown) => setError(describeError(e)),
    );
  }, [client, archive.id, anchor]);
  const mark = useRef<HTMLElement>(null);
  useEffect(() => mark.current?.scrollIntoView({ block: "center" }), [text]);
  const a = text ? anchor.start - text.start : 0;
  const b = text ? anchor.end - text.start : 0;
  return (
    <section class="panel anchor-view" aria-labelledby="anchor-h">
      <div class="row">
        <h2 id="anchor-h" tabIndex={-1} ref={head}>
          {anchor.artifact_id} v{anchor.version} [{anchor.start}, {anchor.end})
        </h2>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {verdict && (
        <p class={verdict.verified ? "ok" : "error"} data-testid="verdict" role="status">
          {verdict.verified
            ? `Verified: the snippet is exactly the text at [${anchor.start}, ${anchor.end}) of version ${anchor.version}.`
            : `Not verified: ${verdict.reason}${verdict.actual !== undefined ? ` (stored text: “${verdict.actual}”)` : ""}`}
        </p>
      )}
      {text && (
        <pre class="content">
          {text.start > 0 && <span class="muted">…</span>}
          {text.text.slice(0, a)}
          <mark ref={mark}>{text.text.slice(a, b)}</mark>
          {text.text.slice(b)}
          {text.start + text.text.length < text.chars && <span class="muted">…</span>}
        </pre>
      )}
    </section>
  );
}

function RoutePanel({ route, theme, onChunk }: { route: RouteResponse; theme: string; onChunk: (id: string) => void }) {
  const t = traceOf(route);
  const [wide, setWide] = useState(false);
  const kinds = (reasons: string[]) =>
    reasons.map((r) => (r.startsWith("entity:") ? "entity" : r === "recent" ? "recency" : r)).join(", ");
  return (
    <section aria-labelledby="route-h" class={wide ? "panel wide" : "panel"}>
      <h2 id="route-h">Route</h2>
      <p class="muted">
        {t.candidate_pool} candidates, {t.filtered_by_time} hidden by time; diffusion touched {t.diffusion.touched}{" "}
        nodes in {t.diffusion.steps} steps;{" "}
        {Object.entries(t.timings_ms)
          .map(([k, v]) => `${k} ${v} ms`)
          .join(", ")}
      </p>
      <RouteGraph route={route} trace={t} theme={theme} wide={wide} onWide={setWide} />
      <details open>
        <summary>Mentions ({t.mentions.length})</summary>
        <ul>
          {t.mentions.map((m) => (
            <li key={`${m.text}-${m.entity}`}>
              “{m.text}” → <span class="mono">{m.entity}</span> <span class="muted">({m.via})</span>
            </li>
          ))}
        </ul>
      </details>
      <details open>
        <summary>Seeds ({t.seeds.length})</summary>
        <Table columns={["chunk", "weight", "kind"]}>
          {t.seeds.map((s) => (
            <tr key={s.chunk}>
              <td>
                <LinkButton onClick={() => onChunk(s.chunk)}>{s.chunk}</LinkButton>
              </td>
              <td>{s.weight}</td>
              <td>{kinds(s.reasons)}</td>
            </tr>
          ))}
        </Table>
      </details>
      <details>
        <summary>Candidates and expert scores ({route.candidates.length})</summary>
        <Table columns={["chunk", "v", "score", ...EXPERTS, "mass"]}>
          {route.candidates.map((c) => (
            <tr key={c.chunk}>
              <td class="mono">{c.chunk}</td>
              <td>{c.version}</td>
              <td>{c.score}</td>
              {EXPERTS.map((x) => (
                <td key={x}>{c.experts[x]}</td>
              ))}
              <td>{c.mass}</td>
            </tr>
          ))}
        </Table>
      </details>
      <details>
        <summary>Router steps ({t.router_steps.length})</summary>
        <Table columns={["depth", "from → to", "edge", "score", "accepted"]}>
          {t.router_steps.map((s, i) => (
            <tr key={i}>
              <td>{s.depth}</td>
              <td class="mono">
                {s.from} → {s.to}
              </td>
              <td>{s.edge_type}</td>
              <td>{s.score}</td>
              <td>{s.accepted ? "yes" : "no"}</td>
            </tr>
          ))}
        </Table>
      </details>
    </section>
  );
}
