/** A small async-state hook: run a request when its inputs change, keep the last answer or error. */
import { useEffect, useState } from "preact/hooks";
import { describeError, type Session } from "./api";

export type Loaded<T> = { state: "loading" } | { state: "error"; error: string } | { state: "ok"; value: T };

export function useLoad<T>(run: () => Promise<T>, deps: unknown[]): [Loaded<T>, () => void] {
  const [value, setValue] = useState<Loaded<T>>({ state: "loading" });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setValue({ state: "loading" });
    run().then(
      (v) => live && setValue({ state: "ok", value: v }),
      (e: unknown) => live && setValue({ state: "error", error: describeError(e) }),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  return [value, () => setTick((t) => t + 1)];
}

/** useLoad of one read of the session's archive, run again when the client or the archive changes. */
export function useArchiveRead<T>(
  session: Session,
  read: (client: Session["client"], archive: string) => Promise<T>,
): [Loaded<T>, () => void] {
  const { client, archive } = session;
  return useLoad(() => read(client, archive.id), [client, archive.id]);
}
