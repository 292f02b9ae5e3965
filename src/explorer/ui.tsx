/** Shared pieces: loading and error states, a labelled definition list, small badges. */
import type { ComponentChildren } from "preact";
import type { Loaded } from "./hooks";

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
