/**
 * Operate: the archive's counts and bytes per head, the ingest log, sources with their status and
 * last error, webhook deliveries and outbound event deliveries with their dead letters. Replay and
 * redeliver buttons render only for keys with the write scope (the server checks it again).
 */
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { describeError, type Session, shortTime } from "./api";
import { type Loaded, useArchiveRead, useLoad } from "./hooks";
import { Badge, Facts, Panel, ReadPanel, Status, Table } from "./ui";

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
  const [info] = useArchiveRead(session, (c, a) => c.archive(a));
  return (
    <Panel id="counts" title="Archive">
      <Status value={info}>
        {(i) => (
          <>
            <Facts
              items={[
                ["id", session.archive.id],
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
    </Panel>
  );
}

function Log({ session }: { session: Session }) {
  return (
    <ReadPanel
      session={session}
      id="log"
      title="Ingest log"
      read={(c, a) => c.ingestLog(a, { limit: 50 })}
      items={(l) => l.entries}
      empty="Nothing ingested through webhooks, sources or imports yet."
    >
      {(l) => (
        <Table columns={["at", "origin", "ref", "status", "error"]}>
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
        </Table>
      )}
    </ReadPanel>
  );
}

function Sources({ session }: { session: Session }) {
  return (
    <ReadPanel
      session={session}
      id="sources"
      title="Sources"
      read={(c, a) => c.sources(a)}
      items={(s) => s.sources}
      empty="No sources."
    >
      {(s) => (
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
      )}
    </ReadPanel>
  );
}

function Webhooks({ session }: { session: Session }) {
  if (!session.isAdmin)
    return (
      <Panel id="webhooks" title="Webhook deliveries">
        <p class="muted">
          Listing an archive's webhooks needs the admin key; reading their deliveries needs a write key.
        </p>
      </Panel>
    );
  return <WebhookList session={session} />;
}

function WebhookList({ session }: { session: Session }) {
  return (
    <ReadPanel
      session={session}
      id="webhooks"
      title="Webhook deliveries"
      read={(c, a) => c.webhooks(a)}
      items={(h) => h.webhooks}
      empty="No webhooks."
    >
      {(h) => h.webhooks.map((w) => <Deliveries key={w.name} session={session} webhook={w.name} />)}
    </ReadPanel>
  );
}

function Deliveries({ session, webhook }: { session: Session; webhook: string }) {
  const { client, archive, canWrite } = session;
  const [list, reload] = useLoad(
    () => client.deliveries(archive.id, webhook, { limit: 50 }),
    [client, archive.id, webhook],
  );
  return (
    <div class="hook">
      <h3>{webhook}</h3>
      <AttemptList
        list={list}
        reload={reload}
        rows={(l) =>
          l.deliveries.map((d) => ({
            key: d.delivery,
            label: d.delivery,
            status: d.status,
            attempts: (
              <>
                {d.attempts} attempts · {shortTime(d.updated_at)}
              </>
            ),
            error: d.error,
            replay: canWrite
              ? () =>
                  client
                    .replayDelivery(archive.id, webhook, d.delivery)
                    .then((r) => `Replayed ${r.delivery} (was ${r.previous}; now ${r.status}).`)
              : null,
          }))
        }
      />
    </div>
  );
}

function Subscriptions({ session }: { session: Session }) {
  return (
    <ReadPanel
      session={session}
      id="events"
      title="Event deliveries"
      read={(c, a) => c.subscriptions(a)}
      items={(s) => s.subscriptions}
      empty="No subscriptions."
    >
      {(s) => s.subscriptions.map((x) => <Events key={x.name} session={session} name={x.name} url={x.url} />)}
    </ReadPanel>
  );
}

function Events({ session, name, url }: { session: Session; name: string; url: string }) {
  const { client, archive, canWrite } = session;
  const [dead, setDead] = useState(false);
  const [list, reload] = useLoad(
    () => client.events(archive.id, name, { limit: 50, ...(dead ? { status: "dead" as const } : {}) }),
    [client, archive.id, name, dead],
  );
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
      <AttemptList
        list={list}
        reload={reload}
        empty="None."
        rows={(l) =>
          l.events.map((ev) => ({
            key: ev.id,
            event: ev.id,
            label: ev.type,
            status: ev.status,
            attempts: (
              <>
                {ev.attempts} attempts{ev.response_status ? ` · HTTP ${ev.response_status}` : ""} ·{" "}
                {shortTime(ev.updated_at)}
              </>
            ),
            error: ev.error,
            replay: canWrite
              ? () => client.redeliver(archive.id, name, ev.id).then((r) => `Redelivering ${r.event}: ${r.status}.`)
              : null,
          }))
        }
      />
    </div>
  );
}

/** One row of an AttemptList: what Attempt shows of a delivery, keyed. */
type AttemptRow = {
  key: string;
  event?: string;
  label: string;
  status: string;
  attempts: ComponentChildren;
  error: string | null | undefined;
  replay: (() => Promise<string>) | null;
};

/**
 * The deliveries `list` loads, one Attempt per row (`empty` as the only row when there are none);
 * a replay's outcome or error shows in the note above them.
 */
function AttemptList<T>({
  list,
  reload,
  rows,
  empty,
}: {
  list: Loaded<T>;
  reload: () => void;
  rows: (v: T) => AttemptRow[];
  empty?: string;
}) {
  const [note, setNote] = useState<string | null>(null);
  return (
    <>
      {note && <p role="status">{note}</p>}
      <Status value={list}>
        {(l) => {
          const shown = rows(l);
          return (
            <ul>
              {empty !== undefined && shown.length === 0 && <li class="muted">{empty}</li>}
              {shown.map(({ key, ...row }) => (
                <Attempt key={key} {...row} setNote={setNote} reload={reload} />
              ))}
            </ul>
          );
        }}
      </Status>
    </>
  );
}

/**
 * One delivery of a webhook or an event: its label, status, attempts and last error, and for a dead
 * letter a Replay button when `replay` is given (write keys only).
 */
function Attempt({
  event,
  label,
  status,
  attempts,
  error,
  replay,
  setNote,
  reload,
}: Omit<AttemptRow, "key"> & { setNote: (note: string) => void; reload: () => void }) {
  return (
    <li class={status === "dead" ? "dead-letter" : ""} data-event={event}>
      <span class="mono">{label}</span> <Badge kind={status}>{status}</Badge> <span class="muted">{attempts}</span>
      {error && <div class="error">{error}</div>}
      {replay && status === "dead" && <ReplayButton replay={replay} setNote={setNote} reload={reload} />}
    </li>
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
