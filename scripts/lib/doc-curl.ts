/**
 * Worked examples in docs/*.md as data: the `curl` lines of a page's bash blocks, grouped by `## `
 * section and parsed (a small subset of curl and of shell quoting: -s, -X, -H, -d; single quotes
 * literal, double quotes and bare words expand $VARS). A `# →` line after a command is text its answer
 * must contain (compact JSON when the answer is JSON). Used by test/worker/doc-curl.ts (in the Worker)
 * and scripts/walkthrough.ts (against a running server).
 */

export interface Step {
  line: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  expect: string[];
}

/** Shell words of one command: single quotes literal, double quotes and bare words expand $VARS. */
export function shellWords(cmd: string, vars: Record<string, string>): string[] {
  const words: string[] = [];
  let cur = "";
  let inWord = false;
  const expand = (s: string) => s.replace(/\$([A-Z_]+)/g, (_, v: string) => vars[v] ?? `$${v}`);
  for (let i = 0; i < cmd.length; i++) {
    const c = cmd[i] as string;
    if (c === "'") {
      const end = cmd.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unclosed ' in: ${cmd.slice(0, 80)}`);
      cur += cmd.slice(i + 1, end);
      i = end;
      inWord = true;
    } else if (c === '"') {
      const end = cmd.indexOf('"', i + 1);
      if (end < 0) throw new Error(`unclosed " in: ${cmd.slice(0, 80)}`);
      cur += expand(cmd.slice(i + 1, end));
      i = end;
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(cur);
      cur = "";
      inWord = false;
    } else {
      let j = i;
      while (j < cmd.length && !/[\s'"]/.test(cmd[j] as string)) j++;
      cur += expand(cmd.slice(i, j));
      i = j - 1;
      inWord = true;
    }
  }
  if (inWord) words.push(cur);
  return words;
}

/** The curl commands of each `## ` section's bash blocks, with their expectations. */
export function sections(md: string, vars: Record<string, string>): Map<string, Step[]> {
  const out = new Map<string, Step[]>();
  let section = "";
  let inBash = false;
  let pending = "";
  for (const raw of md.split("\n")) {
    if (!inBash && raw.startsWith("## ")) section = raw.slice(3).trim();
    if (raw.startsWith("```")) {
      inBash = !inBash && raw.trim() === "```bash";
      continue;
    }
    if (!inBash) continue;
    const steps = out.get(section) ?? [];
    out.set(section, steps);
    if (pending) {
      // Inside a quoted body that spans lines (the shell keeps the newline).
      pending += `\n${raw}`;
    } else if (raw.startsWith("# →")) {
      const last = steps[steps.length - 1];
      if (!last) throw new Error(`expectation before any command in ${section}`);
      last.expect.push(raw.slice(3).trim());
      continue;
    } else if (raw.startsWith("curl ")) {
      pending = raw;
    } else if (raw.trim()) {
      throw new Error(`not a curl line in ${section}: ${raw}`);
    }
    // A command ends where its quotes balance.
    const singles = (pending.match(/'/g) ?? []).length;
    if (pending && singles % 2 === 0) {
      steps.push(parseCurl(pending, vars));
      pending = "";
    }
  }
  return out;
}

export function parseCurl(line: string, vars: Record<string, string>): Step {
  const w = shellWords(line, vars);
  const step: Step = { line, method: "GET", url: "", headers: {}, expect: [] };
  for (let i = 1; i < w.length; i++) {
    const a = w[i] as string;
    if (a === "-s") continue;
    if (a === "-X") step.method = w[++i] as string;
    else if (a === "-H") {
      const h = w[++i] as string;
      const at = h.indexOf(":");
      step.headers[h.slice(0, at).trim().toLowerCase()] = h.slice(at + 1).trim();
    } else if (a === "-d") {
      step.body = w[++i] as string;
      if (step.method === "GET") step.method = "POST";
    } else if (a.startsWith("http")) step.url = a;
    else throw new Error(`curl option this harness does not know: ${a}`);
  }
  return step;
}

/** The text a step's expectations are matched against: compact JSON, or the text itself. */
export function shown(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    return text;
  }
}
