/**
 * Operate: the archive's counts and bytes per head, the ingest log, sources with their status and
 * last error, webhook deliveries and outbound event deliveries with their dead letters. Replay and
 * redeliver buttons render only for keys with the write scope (the server checks it again).
 */
import { useState } from "preact/hooks";
import { describeError, type Session, shortTime } from "./api";
import { useLoad } from "./hooks";
import { Badge, Facts, Status } from "./ui";

export function OperateScreen({ session }: { session: Session }) {
  return (
    <div class="grid">
      <Counts session={session} />
      <Log session={session} />
      <Sources session={session} />
      <Webhooks session={session} />
      <Subscriptions session={session} />
    </div>
  );
}

function Counts({ session }: { session: Session }) {
  const { client, archive } = session;
  const [info] = useLoad(() => client.archive(archive.id), [client, archive.id]);
  return (
    <section class="panel" aria-labelledby="counts-h">
      <h2 id="counts-h">Archive</h2>
      <Status value={info}>
        {(i) => (
          <>
            <Facts
              items={[
                ["id", archive.id],
                ["name", i.archive?.name ?? ""],
                ["chunks", i.stats.storage.chunks],
                ["versions", i.stats.storage.versions],
                ["edges", i.stats.storage.edges],
                ["entities", i.stats.storage.entities],
                ["heads (capital chunk)", i.stats.capital.heads],
                ["bytes per head", i.stats.capital.bytes_per_head],
                ["change-log seq", i.stats.capital.seq],
              ]}
            />
            <details>
              <summary>Capital-chunk bytes</summary>
              <Facts items={Object.entries(i.stats.capital.bytes).map(([k, v]) => [k, v.toLocaleString("en")])} />
            </details>
          </>
        )}
      </Status>
    </section>
  );
}

function Log({ session }: { session: Session }) {
  const { client, archive } = session;
  const [log] = useLoad(() => client.ingestLog(archive.id, { limit: 50 }), [client, archive.id]);
  return (
    <section class="panel" aria-labelledby="log-h">
      <h2 id="log-h">Ingest log</h2>
      <Status value={log}>
        {(l) =>
          l.entries.length === 0 ? (
            <p class="muted">Nothing ingested through webhooks, sources or imports yet.</p>
          ) : (
            <table>
              <thead>
                <tr>
                  <th scope="col">at</th>
                  <th scope="col">origin</th>
                  <th scope="col">ref</th>
                  <th scope="col">status</th>
                  <th scope="col">error</th>
                </tr>
              </thead>
              <tbody>
                {l.entries.map((e) => (
                  <tr key={e.id}>
                    <td>{shortTime(e.at)}</td>
                    <td>{e.origin}</td>
                    <td class="mono">{e.ref}</td>
                    <td>
                      <Badge kind={e.status}>{e.status}</Badge>
                    </td>
                    <td>{e.error ?? ""}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </Status>
    </section>
  );
}

function Sources({ session }: { session: Session }) {
  const { client, archive } = session;
  const [sources] = useLoad(() => client.sources(archive.id), [client, archive.id]);
  return (
    <section class="panel" aria-labelledby="sources-h">
      <h2 id="sources-h">Sources</h2>
      <Status value={sources}>
        {(s) =>
          s.sources.length === 0 ? (
            <p class="muted">No sources.</p>
          ) : (
            <ul>
              {s.sources.map((x) => (
                <li key={x.id}>
                  <strong>{x.id}</strong> <Badge>{x.kind}</Badge> {x.paused && <Badge kind="dead">paused</Badge>}{" "}
                  <span class="mono">{x.location || x.query}</span>
                  <div class="muted">
                    last run {shortTime(x.status.last_run)} · next {shortTime(x.status.next_run)} ·{" "}
                    {x.status.consecutive_failures} failures in a row
                  </div>
                  {x.status.last_error && <div class="error">{x.status.last_error}</div>}
                </li>
              ))}
            </ul>
          )
        }
      </Status>
    </section>
  );
}

function Webhooks({ session }: { session: Session }) {
  if (!session.isAdmin)
    return (
      <section class="panel" aria-labelledby="webhooks-h">
        <h2 id="webhooks-h">Webhook deliveries</h2>
        <p class="muted">
          Listing an archive's webhooks needs the admin key; reading their deliveries needs a write key.
        </p>
      </section>
    );
  return <WebhookList session={session} />;
}

function WebhookList({ session }: { session: Session }) {
  const { client, archive } = session;
  const [hooks] = useLoad(() => client.webhooks(archive.id), [client, archive.id]);
  return (
    <section class="panel" aria-labelledby="webhooks-h">
      <h2 id="webhooks-h">Webhook deliveries</h2>
      <Status value={hooks}>
        {(h) =>
          h.webhooks.length === 0 ? (
            <p class="muted">No webhooks.</p>
          ) : (
            h.webhooks.map((w) => <Deliveries key={w.name} session={session} webhook={w.name} />)
          )
        }
      </Status>
    </section>
  );
}

function Deliveries({ session, webhook }: { session: Session; webhook: string }) {
  const { client, archive, canWrite } = session;
  const [list, reload] = useLoad(
    () => client.deliveries(archive.id, webhook, { limit: 50 }),
    [client, archive.id, webhook],
  );
  const [note, setNote] = useState<string | null>(null);
  return (
    <div class="hook">
      <h3>{webhook}</h3>
      {note && <p role="status">{note}</p>}
      <Status value={list}>
        {(l) => (
          <ul>
            {l.deliveries.map((d) => (
              <li key={d.delivery} class={d.status === "dead" ? "dead-letter" : ""}>
                <span class="mono">{d.delivery}</span> <Badge kind={d.status}>{d.status}</Badge>{" "}
                <span class="muted">
                  {d.attempts} attempts · {shortTime(d.updated_at)}
                </span>
                {d.error && <div class="error">{d.error}</div>}
                {canWrite && d.status === "dead" && (
                  <ReplayButton
                    replay={() =>
                      client
                        .replayDelivery(archive.id, webhook, d.delivery)
                        .then((r) => `Replayed ${r.delivery} (was ${r.previous}; now ${r.status}).`)
                    }
                    setNote={setNote}
                    reload={reload}
                  />
                )}
              </li>
            ))}
          </ul>
        )}
      </Status>
    </div>
  );
}

function Subscriptions({ session }: { session: Session }) {
  const { client, archive } = session;
  const [subs] = useLoad(() => client.subscriptions(archive.id), [client, archive.id]);
  return (
    <section class="panel" aria-labelledby="events-h">
      <h2 id="events-h">Event deliveries</h2>
      <Status value={subs}>
        {(s) =>
          s.subscriptions.length === 0 ? (
            <p class="muted">No subscriptions.</p>
          ) : (
            s.subscriptions.map((x) => <Events key={x.name} session={session} name={x.name} url={x.url} />)
          )
        }
      </Status>
    </section>
  );
}

function Events({ session, name, url }: { session: Session; name: string; url: string }) {
  const { client, archive, canWrite } = session;
  const [dead, setDead] = useState(false);
  const [list, reload] = useLoad(
    () => client.events(archive.id, name, { limit: 50, ...(dead ? { status: "dead" as const } : {}) }),
    [client, archive.id, name, dead],
  );
  const [note, setNote] = useState<string | null>(null);
  return (
    <div class="hook" data-subscription={name}>
      <h3>
        {name} <span class="muted mono">{url}</span>
      </h3>
      <div class="row">
        <label class="check">
          <input type="checkbox" checked={dead} onChange={(e) => setDead(e.currentTarget.checked)} /> dead letters only
        </label>
        <button type="button" onClick={reload}>
          Refresh
        </button>
      </div>
      {note && <p role="status">{note}</p>}
      <Status value={list}>
        {(l) => (
          <ul>
            {l.events.length === 0 && <li class="muted">None.</li>}
            {l.events.map((ev) => (
              <li key={ev.id} class={ev.status === "dead" ? "dead-letter" : ""} data-event={ev.id}>
                <span class="mono">{ev.type}</span> <Badge kind={ev.status}>{ev.status}</Badge>{" "}
                <span class="muted">
                  {ev.attempts} attempts{ev.response_status ? ` · HTTP ${ev.response_status}` : ""} ·{" "}
                  {shortTime(ev.updated_at)}
                </span>
                {ev.error && <div class="error">{ev.error}</div>}
                {canWrite && ev.status === "dead" && (
                  <ReplayButton
                    replay={() =>
                      client.redeliver(archive.id, name, ev.id).then((r) => `Redelivering ${r.event}: ${r.status}.`)
                    }
                    setNote={setNote}
                    reload={reload}
                  />
                )}
              </li>
            ))}
          </ul>
        )}
      </Status>
    </div>
  );
}

/** Replay one dead letter (write keys only): the outcome or the error goes to the list's note. */
function ReplayButton({
  replay,
  setNote,
  reload,
}: {
  replay: () => Promise<string>;
  setNote: (note: string) => void;
  reload: () => void;
}) {
  return (
    <button
      type="button"
      class="write"
      onClick={() =>
        replay().then(
          (note) => {
            setNote(note);
            reload();
          },
          (e: unknown) => setNote(describeError(e)),
        )
      }
    >
      Replay
    </button>
  );
}
