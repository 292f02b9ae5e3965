/**
 * The .bbl parser (src/core/formats/bbl.ts): natbib and biblatex entries, LaTeX stripped to text
 * (accents, emphasis, links, comments), identifiers and titles, the failures and caps, a property
 * (never throws; never more entries than `\bibitem`s), and any real .bbl under ../shared/testdata
 * (BBL_DATA to point elsewhere; skipped without one).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BBL_LIMITS, latexToText, parseBbl } from "../../src/core/formats/bbl";
import { cpuNow } from "./cpu-clock";

const NATBIB = String.raw`\begin{thebibliography}{4}
\providecommand{\natexlab}[1]{#1}
\providecommand{\url}[1]{\texttt{#1}}

\bibitem[Lewis et~al.(2020)Lewis, Perez, K{\"u}ttler, and Rockt{\"a}schel]{lewis2020rag}
Patrick Lewis, Ethan Perez, Heinrich K{\"u}ttler, and Tim Rockt\"{a}schel.
\newblock Retrieval-augmented generation for knowledge-intensive {NLP} tasks.
\newblock In \emph{Advances in Neural Information Processing Systems}, volume~33, pages 9459--9474, 2020.
\newblock URL \url{https://arxiv.org/abs/2005.11401}.

\bibitem[{Guti{\'e}rrez} et~al.(2024{\natexlab{a}})]{gutierrez2024}
Bernal~Jim{\'e}nez Guti{\'e}rrez and Yu~Su.
\newblock {HippoRAG}: Neurobiologically inspired long-term memory for large language models.
\newblock \emph{arXiv preprint arXiv:2405.14831}, 2024{\natexlab{a}}.

\bibitem[Gibbs(1902)]{gibbs1902}
J.~W. Gibbs.
\newblock \emph{Elementary principles in statistical mechanics}.
\newblock C. Scribner's sons, 1902.

% A commented-out \bibitem{ghost} never was.
\bibitem[Lever et~al.(2013)Lever, Laviolette, and
  Shawe-Taylor]{lever2013}
G.~Lever, F.~Laviolette, and J.~Shawe-Taylor.
\newblock Tighter {PAC}-{B}ayes bounds through distribution-dependent priors.
\newblock \emph{Theoretical Computer Science}, 473:\penalty0 4--28, 2013.
\newblock \href{https://doi.org/10.1016/j.tcs.2012.10.013}{\texttt{doi:10.1016/j.tcs.2012.10.013}}.

\end{thebibliography}
`;

/** TeX's opening double quote (two backticks), which a template literal cannot hold as written. */
const OPEN = "``";
const IEEE = String.raw`\begin{thebibliography}{1}
\bibitem{ozturk}
A.~Author and B.~{\"O}zt{\"u}rk, ${OPEN}A study of {\em quiet} archives \& their keepers,'' in \emph{Proc. ACL}, 2019, pp. 1--10.
\end{thebibliography}`;

const BIBLATEX = String.raw`\begin{refsection}[0]
  \datalist[entry]{nty/global//global/global}
    \entry{elias1955}{article}{}
      \name{author}{1}{}{%
        {{hash=68f5}{%
           family={Elias},
           familyi={E\bibinitperiod},
           given={Peter},
           giveni={P\bibinitperiod}}}%
      }
      \strng{namehash}{68f587f427e068e26043d54745351d58}
      \field{labeltitlesource}{title}
      \field{journaltitle}{IRE Transactions on Information Theory}
      \field{title}{Predictive coding--{I}}
      \field{year}{1955}
      \verb{doi}
      \verb 10.1109/TIT.1955.1055126
      \endverb
    \endentry
    \entry{doe2020}{misc}{}
      \name{author}{1}{}{%
        {{uniquename=0,hash=bd05}{M{\"u}ller}{M\bibinitperiod}{J{\"o}rg}{J\bibinitperiod}{}{}{}{}}%
      }
      \list{publisher}{1}{%
        {Curran Associates}%
      }
      \field{title}{Routing memory for long-horizon agents}
      \field{eprinttype}{arXiv}
      \verb{eprint}
      \verb 2005.11401
      \endverb
    \endentry
  \enddatalist
\end{refsection}
`;

function entries(text: string) {
  const r = parseBbl(text);
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

describe("parseBbl: natbib / BibTeX \\bibitem", () => {
  const file = entries(NATBIB);

  it("splits entries with their keys and labels, ignoring comments and the preamble", () => {
    expect(file.style).toBe("bibitem");
    expect(file.entries.map((e) => e.key)).toEqual(["lewis2020rag", "gutierrez2024", "gibbs1902", "lever2013"]);
    expect(file.entries.map((e) => e.n)).toEqual([1, 2, 3, 4]);
    expect(file.entries[0]?.label).toBe("Lewis et al.(2020)Lewis, Perez, Küttler, and Rocktäschel");
    expect(file.entries[1]?.label).toBe("Gutiérrez et al.(2024a)");
    expect(file.clipped).toEqual([]);
  });

  it("takes the second \\newblock as the title and finds arXiv ids and DOIs", () => {
    expect(file.entries.map((e) => e.title)).toEqual([
      "Retrieval-augmented generation for knowledge-intensive NLP tasks",
      "HippoRAG: Neurobiologically inspired long-term memory for large language models",
      "Elementary principles in statistical mechanics",
      "Tighter PAC-Bayes bounds through distribution-dependent priors",
    ]);
    expect(file.entries.map((e) => e.ids)).toEqual([
      ["arxiv:2005.11401"],
      ["arxiv:2405.14831"],
      [],
      ["doi:10.1016/j.tcs.2012.10.013"],
    ]);
    expect(file.entries.map((e) => e.cited)).toEqual([
      "arxiv:2005.11401",
      "arxiv:2405.14831",
      null,
      "doi:10.1016/j.tcs.2012.10.013",
    ]);
  });

  it("strips LaTeX to text: accents, emphasis, ties, dashes, \\penalty", () => {
    const lewis = file.entries[0]?.text ?? "";
    expect(lewis).toContain("Heinrich Küttler, and Tim Rocktäschel.");
    expect(lewis).toContain("volume 33, pages 9459–9474, 2020.");
    expect(lewis).not.toMatch(/[\\{}~]/);
    expect(file.entries[3]?.text).toContain("473: 4–28, 2013.");
  });

  it("keeps a quoted title without \\newblock (IEEEtran)", () => {
    const [e] = entries(IEEE).entries;
    expect(e?.title).toBe("A study of quiet archives & their keepers");
    expect(e?.text).toContain("B. Öztürk");
  });
});

describe("parseBbl: biblatex \\entry", () => {
  const file = entries(BIBLATEX);

  it("reads title, names, venue and identifiers by field", () => {
    expect(file.style).toBe("biblatex");
    expect(file.entries.map((e) => e.key)).toEqual(["elias1955", "doe2020"]);
    expect(file.entries[0]).toMatchObject({
      title: "Predictive coding–I",
      ids: ["doi:10.1109/tit.1955.1055126"],
      cited: "doi:10.1109/tit.1955.1055126",
    });
    expect(file.entries[0]?.text).toContain(
      "Peter Elias. Predictive coding–I. IRE Transactions on Information Theory, 1955",
    );
    expect(file.entries[1]).toMatchObject({
      title: "Routing memory for long-horizon agents",
      ids: ["arxiv:2005.11401"],
    });
    expect(file.entries[1]?.text).toContain("Jörg Müller");
    expect(file.entries[1]?.text).toContain("Curran Associates");
  });
});

describe("latexToText", () => {
  it("decodes accents in every written form (a space after a letter command is TeX's)", () => {
    expect(
      latexToText(String.raw`{\"o} \"o \"{o} \'{e} \'\i \`a \^o \~n \c{c} \v{s} \c c \H{o} \ss{} \o{} \AA{} \l`),
    ).toBe("ö ö ö é í à ô ñ ç š ç ő ß ø Å ł");
    expect(latexToText(String.raw`Stra\ss e, \O stergaard`)).toBe("Straße, Østergaard");
  });

  it("keeps link texts and targets, drops formatting and comments' escapes", () => {
    expect(latexToText(String.raw`\href{https://x.org/a}{\texttt{the site}} \url{https://y.org} \doi{10.1/x}`)).toBe(
      "the site https://x.org/a https://y.org doi:10.1/x",
    );
    expect(latexToText(String.raw`{\em Deep} \textit{learning} \textbf{at} 50\% \& more~now`)).toBe(
      "Deep learning at 50% & more now",
    );
  });
});

describe("parseBbl: failures and caps", () => {
  it("answers a 400 naming the body for empty, entry-less and binary input", () => {
    for (const text of [
      "",
      "   ",
      "just some prose, no bibliography",
      "\\begin{thebibliography}{0}\\end{thebibliography}",
    ]) {
      const r = parseBbl(text);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error).toMatchObject({ kind: "validation", field: "body" });
    }
    const binary = parseBbl("\u0000\u0001\u0002PK\u0003\u0004".repeat(50));
    expect(binary.ok).toBe(false);
    if (!binary.ok) expect(binary.error.message).toContain("not text");
  });

  it("refuses more entries than BBL_LIMITS.maxEntries and cuts long entries, reporting them", () => {
    const many = parseBbl("\\bibitem{k} A. B. Title words here.\n".repeat(BBL_LIMITS.maxEntries + 1));
    expect(many.ok).toBe(false);
    if (!many.ok) expect(many.error).toMatchObject({ kind: "too_large", field: "body" });
    const long = entries(`\\bibitem{a} A. Author. \\newblock A long title here. ${"x ".repeat(4000)}\n\\bibitem{b} B.`);
    expect(long.clipped).toEqual([1]);
    expect(long.entries[0]?.title).toBe("A long title here");
  });

  it("never throws and finds at most one entry per \\bibitem (property)", () => {
    const piece = fc.oneof(
      fc.constantFrom(
        "\\bibitem",
        "[",
        "]",
        "{",
        "}",
        "\\newblock ",
        "\\entry{",
        "\\endentry",
        "\\field{title}{",
        "\\verb{doi}",
        "\\endverb",
        '\\"',
        "\\'",
        "\\href{",
        "%",
        "~",
        "arXiv:2405.14831",
        "10.1145/1.2",
        "\n",
        "A. Author. ",
        "\\end{thebibliography}",
      ),
      fc.string({ maxLength: 12 }),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 60 }), (parts) => {
        const text = parts.join("");
        const r = parseBbl(text);
        const bibitems = text.match(/\\bibitem/g)?.length ?? 0;
        const entryStarts = text.match(/\\entry\s*\{/g)?.length ?? 0;
        if (r.ok) expect(r.value.entries.length).toBeLessThanOrEqual(Math.max(bibitems, entryStarts));
      }),
      { numRuns: 500 },
    );
  });

  it("is linear: adversarial openings parse quickly", () => {
    for (const text of [
      "\\bibitem[".repeat(100_000),
      `\\bibitem{a} ${"\\href{".repeat(100_000)}`,
      `\\entry{a}{b}{}${"\\field{x}{".repeat(100_000)}\\endentry`,
      `\\bibitem{a} ${"{".repeat(500_000)}`,
    ]) {
      const t = cpuNow();
      parseBbl(text);
      expect(cpuNow() - t).toBeLessThan(2000);
    }
  });
});

// Real .bbl files, when ../shared/testdata has any (never copied into the repository).
const DATA = process.env.BBL_DATA ?? join(__dirname, "..", "..", "..", "shared", "testdata");
function bblFiles(dir: string, out: string[] = [], depth = 0): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of names) {
    const p = join(dir, name);
    let st: ReturnType<typeof statSync>;
    try {
      st = statSync(p);
    } catch {
      continue;
    }
    if (st.isDirectory() && depth < 6) bblFiles(p, out, depth + 1);
    else if (name.endsWith(".bbl")) out.push(p);
  }
  return out;
}
const REAL = bblFiles(DATA);

describe.skipIf(REAL.length === 0)(`real .bbl files (${DATA})`, () => {
  it("parses each into entries with keys, most with a title", () => {
    for (const f of REAL) {
      const text = readFileSync(f, "utf8");
      const r = parseBbl(text);
      if (!r.ok) {
        // A .bbl without entries (an empty bibliography) is refused, never thrown.
        expect(r.error.field, f).toBe("body");
        continue;
      }
      const withTitle = r.value.entries.filter((e) => e.title).length;
      expect(
        r.value.entries.every((e) => e.key.length > 0),
        f,
      ).toBe(true);
      expect(withTitle / r.value.entries.length, f).toBeGreaterThan(0.5);
    }
  });
});
