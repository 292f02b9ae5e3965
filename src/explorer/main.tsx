/**
 * The explorer's entry: sign in with a key (sessionStorage only), pick an archive, then four
 * screens (Ask, Browse, Operate) over the public REST API. Light and dark follow
 * prefers-color-scheme unless the toggle chose one (remembered in localStorage; it is no secret).
 */
import { render } from "preact";
import { useEffect, useLayoutEffect, useState } from "preact/hooks";
import type { WhoAmI } from "../client";
import {
  type ArchiveAccess,
  clientFor,
  describeError,
  forget,
  remember,
  type Session,
  storedArchive,
  storedKey,
} from "./api";
import { AskScreen } from "./ask";
import { BrowseScreen, type BrowseTarget } from "./browse";
import { OperateScreen } from "./operate";

type Tab = "ask" | "browse" | "operate";
const TABS: Array<[Tab, string]> = [
  ["ask", "Ask and route"],
  ["browse", "Browse"],
  ["operate", "Operate"],
];
type Theme = "auto" | "light" | "dark";
const THEME_KEY = "paperguru.explorer.theme";

function applyTheme(t: Theme) {
  if (t === "auto") delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = t;
}

function effectiveTheme(t: Theme): "light" | "dark" {
  if (t !== "auto") return t;
  return matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}

function App() {
  const [who, setWho] = useState<{ key: string; me: WhoAmI } | null>(null);
  const [session, setSession] = useState<Session | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [tab, setTab] = useState<Tab>("ask");
  const [target, setTarget] = useState<BrowseTarget>(null);
  const [theme, setTheme] = useState<Theme>(() => (localStorage.getItem(THEME_KEY) as Theme | null) ?? "auto");

  useLayoutEffect(() => {
    applyTheme(theme);
    localStorage.setItem(THEME_KEY, theme);
  }, [theme]);

  const choose = (key: string, me: WhoAmI, id: string | null) => {
    const a: ArchiveAccess | undefined =
      me.archives.find((x) => x.id === id) ?? (me.archives.length === 1 ? me.archives[0] : undefined);
    setWho({ key, me });
    remember(key, a?.id ?? null);
    setSession(
      a ? { client: clientFor(key), archive: a, canWrite: a.scopes.includes("write"), isAdmin: me.admin } : null,
    );
    setTarget(null);
  };

  const signIn = async (key: string, archive: string | null) => {
    setBusy(true);
    setError(null);
    try {
      const me = await clientFor(key).whoami();
      choose(key, me, archive);
    } catch (e) {
      setError(describeError(e));
      forget();
    } finally {
      setBusy(false);
    }
  };
  useEffect(() => {
    const key = storedKey();
    if (key) void signIn(key, storedArchive());
  }, []);

  const signOut = () => {
    forget();
    setWho(null);
    setSession(null);
  };
  const nextTheme: Record<Theme, Theme> = { auto: "light", light: "dark", dark: "auto" };

  return (
    <>
      <header class="top">
        <strong class="brand">PaperGuru explorer</strong>
        {session && (
          <span class="who">
            <span class="mono">{session.archive.id}</span>{" "}
            <span class="badge" data-testid="scopes">
              {session.archive.scopes.join(" + ")}
            </span>
          </span>
        )}
        <nav class="links" aria-label="Reference">
          <a href="/docs">API reference</a>
        </nav>
        <button
          type="button"
          class="theme"
          onClick={() => setTheme(nextTheme[theme])}
          aria-label={`Colour theme: ${theme}. Switch to ${nextTheme[theme]}`}
        >
          Theme: {theme}
        </button>
        {who && (
          <button type="button" onClick={signOut}>
            Sign out
          </button>
        )}
      </header>
      <main>
        {!who && <SignIn busy={busy} error={error} onSubmit={(k) => void signIn(k, null)} />}
        {who && (
          <ArchivePicker
            me={who.me}
            current={session?.archive.id ?? null}
            onPick={(id) => choose(who.key, who.me, id)}
          />
        )}
        {session && (
          <>
            <div class="tabs" role="tablist" aria-label="Screens">
              {TABS.map(([id, label]) => (
                <button
                  key={id}
                  type="button"
                  role="tab"
                  id={`tab-${id}`}
                  aria-selected={tab === id}
                  aria-controls={`panel-${id}`}
                  onClick={() => setTab(id)}
                >
                  {label}
                </button>
              ))}
            </div>
            <div
              role="tabpanel"
              id={`panel-${tab}`}
              aria-labelledby={`tab-${tab}`}
              key={`${session.archive.id}-${tab}`}
            >
              {tab === "ask" && (
                <AskScreen
                  session={session}
                  theme={effectiveTheme(theme)}
                  onChunk={(id) => {
                    setTarget({ chunk: id });
                    setTab("browse");
                  }}
                />
              )}
              {tab === "browse" && <BrowseScreen session={session} target={target} onTarget={setTarget} />}
              {tab === "operate" && <OperateScreen session={session} />}
            </div>
          </>
        )}
      </main>
    </>
  );
}

function SignIn({ busy, error, onSubmit }: { busy: boolean; error: string | null; onSubmit: (key: string) => void }) {
  const [key, setKey] = useState("");
  return (
    <section class="panel signin" aria-labelledby="signin-h">
      <h1 id="signin-h">Look inside a memory</h1>
      <p>
        Paste an archive key (<code>pgk_…</code>) or the admin key. It stays in this tab's sessionStorage: never in a
        URL, a cookie or on disk, and it is gone when the tab closes.
      </p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (key.trim()) onSubmit(key.trim());
        }}
      >
        <label>
          Key
          <input
            name="key"
            type="password"
            autoComplete="off"
            spellcheck={false}
            value={key}
            onInput={(e) => setKey(e.currentTarget.value)}
            required
          />
        </label>
        <button type="submit" disabled={busy}>
          {busy ? "Checking…" : "Open"}
        </button>
      </form>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <p class="muted">
        Also here: <a href="/docs">/docs</a> (API reference), <a href="/openapi.json">/openapi.json</a>,{" "}
        <code>/mcp</code> (MCP over streamable HTTP), <a href="/healthz">/healthz</a>.
      </p>
    </section>
  );
}

function ArchivePicker({ me, current, onPick }: { me: WhoAmI; current: string | null; onPick: (id: string) => void }) {
  if (me.archives.length === 0) return <p class="error">This key reaches no archive.</p>;
  if (me.archives.length === 1 && current) return null;
  return (
    <section class="panel picker" aria-labelledby="picker-h">
      <h2 id="picker-h">Archive</h2>
      <label>
        Archive
        <select
          name="archive"
          value={current ?? ""}
          onChange={(e) => e.currentTarget.value && onPick(e.currentTarget.value)}
        >
          <option value="">choose…</option>
          {me.archives.map((a) => (
            <option key={a.id} value={a.id}>
              {a.id} — {a.name}
            </option>
          ))}
        </select>
      </label>
    </section>
  );
}

const root = document.getElementById("app");
if (root) {
  root.replaceChildren();
  render(<App />, root);
}
