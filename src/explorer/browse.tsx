/**
 * Browse: chunks page by page (filter by kind, entity, boundary), one chunk's versions on a
 * timeline with a line diff between two versions and its deprecation, its neighbours, and an
 * entity's aliases, renames and merges over time.
 */
import { useState } from "preact/hooks";
import { CHUNK_KINDS } from "../core/types";
import { type Session, shortTime } from "./api";
import { useLoad } from "./hooks";
import { Badge, Facts, LinkButton, Status, Table } from "./ui";

export type BrowseTarget = { chunk: string } | { entity: string } | null;

export function BrowseScreen(props: { session: Session; target: BrowseTarget; onTarget: (t: BrowseTarget) => void }) {
  const { target } = props;
  return (
    <div class="split">
      <ChunkList session={props.session} onTarget={props.onTarget} />
      {target && "chunk" in target && (
        <ChunkView key={target.chunk} session={props.session} id={target.chunk} onTarget={props.onTarget} />
      )}
      {target && "entity" in target && (
        <EntityView key={target.entity} session={props.session} id={target.entity} onTarget={props.onTarget} />
      )}
    </div>
  );
}

/** A labelled text input of a filter form. */
function TextField(props: {
  label: string;
  name: string;
  value: string;
  onValue: (v: string) => void;
  placeholder: string;
}) {
  return (
    <label>
      {props.label}
      <input
        name={props.name}
        value={props.value}
        onInput={(e) => props.onValue(e.currentTarget.value)}
        placeholder={props.placeholder}
      />
    </label>
  );
}

function ChunkList({ session, onTarget }: { session: Session; onTarget: (t: BrowseTarget) => void }) {
  const { client, archive } = session;
  const [kind, setKind] = useState("");
  const [entity, setEntity] = useState("");
  const [boundary, setBoundary] = useState("");
  const [applied, setApplied] = useState({ kind: "", entity: "", boundary: "" });
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const [page] = useLoad(
    () =>
      client.chunks(archive.id, {
        limit: 25,
        ...(applied.kind ? { kind: applied.kind as (typeof CHUNK_KINDS)[number] } : {}),
        ...(applied.entity ? { entity: applied.entity } : {}),
        ...(applied.boundary ? { boundary: applied.boundary } : {}),
        ...(cursor ? { cursor } : {}),
      }),
    [client, archive.id, applied, cursor],
  );
  return (
    <section class="panel" aria-labelledby="chunks-h">
      <h2 id="chunks-h">Chunks</h2>
      <form
        class="filters"
        aria-label="Filter chunks"
        onSubmit={(e) => {
          e.preventDefault();
          setApplied({ kind, entity: entity.trim(), boundary: boundary.trim() });
          setCursors([undefined]);
        }}
      >
        <label>
          Kind
          <select name="kind" value={kind} onChange={(e) => setKind(e.currentTarget.value)}>
            <option value="">any</option>
            {CHUNK_KINDS.map((k) => (
              <option key={k} value={k}>
                {k}
              </option>
            ))}
          </select>
        </label>
        <TextField label="Entity" name="entity" value={entity} onValue={setEntity} placeholder="method:hipporag" />
        <TextField label="Boundary" name="boundary" value={boundary} onValue={setBoundary} placeholder="split:dev" />
        <button type="submit">Filter</button>
      </form>
      <Status value={page}>
        {(p) => (
          <>
            <Table class="chunk-table" columns={["chunk", "kind", "v", "valid from"]}>
              {p.chunks.map((c) => (
                <tr key={c.id} class={c.deprecated_at ? "deprecated" : ""}>
                  <td>
                    <LinkButton onClick={() => onTarget({ chunk: c.id })}>{c.id}</LinkButton>
                    <div class="muted">{c.title}</div>
                  </td>
                  <td>{c.kind}</td>
                  <td>
                    {c.version}/{c.latest_version}
                  </td>
                  <td>{shortTime(c.valid_from)}</td>
                </tr>
              ))}
            </Table>
            {p.chunks.length === 0 && <p class="muted">No chunk matches.</p>}
            <div class="row">
              <button type="button" disabled={cursors.length < 2} onClick={() => setCursors((c) => c.slice(0, -1))}>
                Previous page
              </button>
              <span class="muted">page {cursors.length}</span>
              <button
                type="button"
                disabled={!p.next_cursor}
                onClick={() => p.next_cursor && setCursors((c) => [...c, p.next_cursor ?? undefined])}
              >
                Next page
              </button>
            </div>
          </>
        )}
      </Status>
    </section>
  );
}

function ChunkView({ session, id, onTarget }: { session: Session; id: string; onTarget: (t: BrowseTarget) => void }) {
  const { client, archive } = session;
  const [detail] = useLoad(() => client.chunk(archive.id, id), [client, archive.id, id]);
  const [neighbours] = useLoad(() => client.neighbours(archive.id, { chunk: id }), [client, archive.id, id]);
  const [pair, setPair] = useState<[number, number] | null>(null);
  const [diff] = useLoad(
    () => (pair ? client.diff(archive.id, id, { from: pair[0], to: pair[1] }) : Promise.resolve(null)),
    [client, archive.id, id, pair?.[0], pair?.[1]],
  );
  return (
    <section class="panel" aria-labelledby="chunk-h">
      <h2 id="chunk-h" class="mono">
        {id}
      </h2>
      <Status value={detail}>
        {(d) => {
          const first = Date.parse(d.first_valid_from);
          const last = Math.max(Date.now(), ...d.versions.map((v) => Date.parse(v.valid_to ?? v.valid_from)));
          const span = Math.max(1, last - first);
          return (
            <>
              <Facts
                items={[
                  ["kind", d.kind],
                  ["versions", d.versions.length],
                  ["first valid", shortTime(d.first_valid_from)],
                  [
                    "deprecated",
                    d.deprecated_at
                      ? `${shortTime(d.deprecated_at)}${d.deprecated_by ? ` by ${d.deprecated_by}` : ""}${d.deprecation_reason ? `: ${d.deprecation_reason}` : ""}`
                      : "no",
                  ],
                ]}
              />
              <h3>Versions</h3>
              <ol class="timeline" aria-label="Version timeline">
                {d.versions.map((v) => {
                  const from = Date.parse(v.valid_from);
                  const to = v.valid_to ? Date.parse(v.valid_to) : last;
                  return (
                    <li key={v.version} data-version={v.version}>
                      <div class="tl-label">
                        <strong>v{v.version}</strong> {v.title}{" "}
                        <span class="muted">
                          {shortTime(v.valid_from)} → {v.valid_to ? shortTime(v.valid_to) : "open"} · {v.content_chars}{" "}
                          chars
                        </span>
                      </div>
                      <Bar left={(from - first) / span} width={Math.max(0.01, (to - from) / span)} open={!v.valid_to} />
                      <div class="muted">
                        entities:{" "}
                        {v.entities.length === 0
                          ? "none"
                          : v.entities.map((e) => (
                              <LinkButton key={e} onClick={() => onTarget({ entity: e })}>
                                {e}
                              </LinkButton>
                            ))}
                      </div>
                      {v.version > 1 && (
                        <button type="button" onClick={() => setPair([v.version - 1, v.version])}>
                          Diff v{v.version - 1} → v{v.version}
                        </button>
                      )}
                    </li>
                  );
                })}
              </ol>
              {pair && (
                <Status value={diff}>
                  {(df) =>
                    df && (
                      <div class="diff">
                        <p class="muted">
                          v{df.from.version} → v{df.to.version}: +{df.inserted_lines} −{df.deleted_lines} lines
                        </p>
                        <pre>
                          {df.ops
                            .filter((o) => o.op !== "equal")
                            .map((o) => (
                              <span key={`${o.op}-${o.from[0]}-${o.to[0]}`} class={o.op === "insert" ? "ins" : "del"}>
                                {o.text
                                  .split("\n")
                                  .filter((l, i, all) => l !== "" || i < all.length - 1)
                                  .map((l) => `${o.op === "insert" ? "+" : "−"} ${l}\n`)
                                  .join("")}
                              </span>
                            ))}
                        </pre>
                      </div>
                    )
                  }
                </Status>
              )}
            </>
          );
        }}
      </Status>
      <h3>Neighbours</h3>
      <Status value={neighbours}>
        {(n) =>
          n.neighbours.length === 0 ? (
            <p class="muted">No neighbours.</p>
          ) : (
            <ul>
              {n.neighbours.map((x) => (
                <li key={`${x.direction}-${x.type}-${x.chunk}`}>
                  {x.direction === "out" ? "→" : "←"} <Badge>{x.type}</Badge>{" "}
                  <LinkButton onClick={() => onTarget({ chunk: x.chunk })}>{x.chunk}</LinkButton>{" "}
                  <span class="muted">
                    weight {x.weight}
                    {x.visible ? "" : " · not valid now"}
                  </span>
                </li>
              ))}
            </ul>
          )
        }
      </Status>
    </section>
  );
}

/** A bar on the chunk's own time axis, drawn in SVG (no style attribute). */
function Bar({ left, width, open }: { left: number; width: number; open: boolean }) {
  return (
    <svg class="bar" viewBox="0 0 1000 10" preserveAspectRatio="none" aria-hidden="true">
      <rect
        x={Math.round(left * 1000)}
        y="1"
        width={Math.max(4, Math.round(width * 1000))}
        height="8"
        rx="2"
        class={open ? "open" : "closed"}
      />
    </svg>
  );
}

function EntityView({ session, id, onTarget }: { session: Session; id: string; onTarget: (t: BrowseTarget) => void }) {
  const { client, archive } = session;
  const [entity] = useLoad(() => client.entity(archive.id, id), [client, archive.id, id]);
  return (
    <section class="panel" aria-labelledby="entity-h">
      <h2 id="entity-h" class="mono">
        {id}
      </h2>
      <Status value={entity}>
        {(e) => (
          <>
            <Facts
              items={[
                ["name", e.name],
                ["type", e.type],
                ["created", shortTime(e.created_at)],
                [
                  "merged into",
                  e.merged_into ? (
                    <LinkButton onClick={() => e.merged_into && onTarget({ entity: e.merged_into })}>
                      {`${e.merged_into} (${shortTime(e.merged_at)})`}
                    </LinkButton>
                  ) : (
                    "—"
                  ),
                ],
              ]}
            />
            <h3>Aliases</h3>
            <ul>
              {e.aliases.map((a) => (
                <li key={`${a.alias}-${a.valid_from}`}>
                  {a.alias}{" "}
                  <span class="muted">
                    {shortTime(a.valid_from)} → {a.valid_to ? shortTime(a.valid_to) : "open"}
                  </span>
                </li>
              ))}
            </ul>
            <h3>History</h3>
            <ol>
              {e.events.map((ev) => (
                <li key={`${ev.op}-${ev.at}-${ev.recorded_at}`}>
                  <Badge>{ev.op}</Badge> {shortTime(ev.at)} <span class="mono muted">{JSON.stringify(ev.detail)}</span>
                </li>
              ))}
            </ol>
            <h3>Mentioned by</h3>
            <ul>
              {e.mentions.slice(0, 50).map((m) => (
                <li key={`${m.chunk}-${m.version}`}>
                  <LinkButton onClick={() => onTarget({ chunk: m.chunk })}>{m.chunk}</LinkButton> v{m.version}
                </li>
              ))}
            </ul>
          </>
        )}
      </Status>
    </section>
  );
}
