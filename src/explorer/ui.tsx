/** Shared pieces: loading and error states, a labelled definition list, small badges, tables, panels. */
import type { ComponentChildren } from "preact";
import type { Session } from "./api";
import { type Loaded, useArchiveRead } from "./hooks";

export function Status<T>({ value, children }: { value: Loaded<T>; children: (v: T) => ComponentChildren }) {
  if (value.state === "loading")
    return (
      <p class="muted" role="status">
        Loading…
      </p>
    );
  if (value.state === "error")
    return (
      <p class="error" role="alert">
        {value.error}
      </p>
    );
  return <>{children(value.value)}</>;
}

export function Badge({ kind, children }: { kind?: string; children: ComponentChildren }) {
  return <span class={`badge ${kind ?? ""}`}>{children}</span>;
}

export function Facts({ items }: { items: Array<[string, ComponentChildren]> }) {
  return (
    <dl class="facts">
      {items.map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  );
}

/** A button that looks like a link: for in-page navigation that is not a URL. */
export function LinkButton({
  onClick,
  children,
  label,
}: {
  onClick: () => void;
  children: ComponentChildren;
  label?: string;
}) {
  return (
    <button type="button" class="link" onClick={onClick} aria-label={label}>
      {children}
    </button>
  );
}

/** A titled panel: a section labelled by its heading (`<id>-h`). */
export function Panel({ id, title, children }: { id: string; title: ComponentChildren; children: ComponentChildren }) {
  return (
    <section class="panel" aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>{title}</h2>
      {children}
    </section>
  );
}

/** What `value` loads, as `children` renders it; `empty` while the loaded list has nothing in it. */
export function Listed<T>({
  value,
  items,
  empty,
  children,
}: {
  value: Loaded<T>;
  items: (v: T) => readonly unknown[];
  empty: string;
  children: (v: T) => ComponentChildren;
}) {
  return <Status value={value}>{(v) => (items(v).length === 0 ? <p class="muted">{empty}</p> : children(v))}</Status>;
}

/** A panel (`id`, `title`) listing what one read of the session's archive answers, as `Listed` shows it. */
export function ReadPanel<T>({
  session,
  id,
  title,
  read,
  items,
  empty,
  children,
}: {
  session: Session;
  id: string;
  title: string;
  read: (client: Session["client"], archive: string) => Promise<T>;
  items: (v: T) => readonly unknown[];
  empty: string;
  children: (v: T) => ComponentChildren;
}) {
  const [value] = useArchiveRead(session, read);
  return (
    <Panel id={id} title={title}>
      <Listed value={value} items={items} empty={empty}>
        {children}
      </Listed>
    </Panel>
  );
}

/** A table with one header row naming the `columns`; `children` are its body rows. */
export function Table({
  columns,
  class: className,
  children,
}: {
  columns: readonly string[];
  class?: string;
  children: ComponentChildren;
}) {
  return (
    <table class={className}>
      <thead>
        <tr>
          {columns.map((c) => (
            <th key={c} scope="col">
              {c}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  );
}
