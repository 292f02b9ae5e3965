/**
 * Deterministic encyclopedia-style prose for ingest benchmarks: each passage is about one subject
 * (a person, an institution, a place or a work, its title) and names 2-6 other subjects of the
 * corpus with their capitalised names, dates and figures, 500-3,000 characters long. The names
 * give the ingest-time analyser real work (mentions of other passages' titles, capitalised runs).
 */
import { rng } from "./synthetic";

const FIRST = (
  "Margaret Henrik Amara Tobias Ingrid Rafael Celeste Dmitri Leonora Kwame Isabel Anselm Yuki Oskar " +
  "Beatrix Malik Helena Tomasz Priya Lucien Freya Emeka Rosalind Teodor Nadia Cormac Sunniva Aurelio"
).split(" ");
const LAST = (
  "Holloway Lindqvist Okafor Brandt Castellanos Varga Whitcombe Nakamura Ferreira Abernathy Kowalczyk " +
  "Delacroix Mbeki Haugland Sorensen Achterberg Quintero Rasmussen Oyelaran Fitzgerald Moravec Ishikawa"
).split(" ");
const PLACES = (
  "Lisbon Tromsø Valparaíso Kraków Edinburgh Lagos Kyoto Ghent Trieste Montréal Adelaide Bergen Porto " +
  "Tbilisi Leiden Salzburg Halifax Cork Uppsala Bologna"
).split(" ");
const ORG_KIND = ["Conservatory", "Institute", "Museum", "Observatory", "Academy", "Library", "Society", "Company"];
const ORG_FIELD = ["Music", "Natural History", "Marine Science", "Fine Arts", "Astronomy", "Engineering", "Letters"];
const WORK_A = ["The", "A"];
const WORK_B = ["Silent", "Northern", "Glass", "Last", "Hidden", "Winter", "Iron", "Golden", "Distant", "Broken"];
const WORK_C = ["Harbour", "Orchard", "Cartographer", "Lantern", "Archive", "Meridian", "Garden", "Frontier"];
const ROLES = ["composer", "painter", "engineer", "historian", "astronomer", "novelist", "architect", "botanist"];
const VERBS = ["founded", "led", "joined", "reorganised", "funded", "documented", "expanded", "restored"];

export interface ProsePassage {
  id: string;
  title: string;
  text: string;
  /** Names of the other subjects the text mentions. */
  mentions: string[];
}

export interface ProseCorpus {
  passages: ProsePassage[];
  /** Questions about passages' subjects ("Where did X work?"), for query load. */
  questions: string[];
}

/** `n` passages (ids prefix:0..n-1); the same seed gives the same corpus. */
export function proseCorpus(n: number, seed = 11, prefix = "prose"): ProseCorpus {
  const r = rng(seed);
  const pick = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)] as T;
  const int = (lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
  type Subject = { name: string; kind: "person" | "org" | "place" | "work"; place: string; role: string };
  const subjects: Subject[] = [];
  const used = new Set<string>();
  while (subjects.length < n) {
    const kind = pick(["person", "person", "person", "org", "org", "work", "place"] as const);
    const place = pick(PLACES);
    let name: string;
    if (kind === "person") name = `${pick(FIRST)} ${pick(LAST)}`;
    else if (kind === "org") name = `${place} ${pick(ORG_KIND)} of ${pick(ORG_FIELD)}`;
    else if (kind === "work") name = `${pick(WORK_A)} ${pick(WORK_B)} ${pick(WORK_C)}`;
    else
      name = `${pick(["Old", "New", "Upper", "Lower", "West", "East"])} ${place} ${pick(["Quarter", "Harbour", "Valley"])}`;
    // Distinct titles: a repeated name gets a disambiguating suffix, as encyclopedias do.
    if (used.has(name)) name = `${name} (${kind === "person" ? pick(ROLES) : `${int(1850, 2015)}`})`;
    if (used.has(name)) continue;
    used.add(name);
    subjects.push({ name, kind, place, role: pick(ROLES) });
  }
  const passages: ProsePassage[] = [];
  const questions: string[] = [];
  for (let i = 0; i < n; i++) {
    const s = subjects[i] as Subject;
    const others = Array.from({ length: int(2, 6) }, () => subjects[Math.floor(r() * n)] as Subject).filter(
      (o) => o !== s,
    );
    const year = int(1820, 2010);
    const sentences: string[] = [];
    if (s.kind === "person")
      sentences.push(
        `${s.name} (born ${int(1, 28)} ${pick(["March", "June", "October", "January", "August"])} ${year} in ${s.place}) is a ${s.role} known for work on ${pick(ORG_FIELD).toLowerCase()}.`,
      );
    else if (s.kind === "org")
      sentences.push(
        `The ${s.name} is an institution in ${s.place}, established in ${year} by a group of local patrons.`,
      );
    else if (s.kind === "work")
      sentences.push(
        `${s.name} is a ${pick(["novel", "symphony", "film", "painting cycle"])} first presented in ${s.place} in ${year}.`,
      );
    else sentences.push(`${s.name} is a district of ${s.place} whose present layout dates from ${year}.`);
    const target = int(500, 3000);
    let k = 0;
    while (sentences.join(" ").length < target) {
      const o = others[k % Math.max(1, others.length)];
      const y = year + int(1, 60);
      const who = o?.name ?? pick(PLACES);
      const templates = [
        `In ${y}, ${who} ${pick(VERBS)} a programme there with ${int(3, 400)} members, which ${s.name} later described as decisive.`,
        `According to a ${y} survey by the ${pick(PLACES)} ${pick(ORG_KIND)}, the collection held ${int(120, 98000).toLocaleString("en")} items, several of them connected to ${who}.`,
        `Critics in ${pick(PLACES)} compared it with ${who}, noting the shared interest in ${pick(ORG_FIELD).toLowerCase()} and the influence of ${pick(FIRST)} ${pick(LAST)}.`,
        `During the ${Math.floor(y / 10) * 10}s the relationship with ${who} changed after a dispute over funding, and a committee chaired by ${pick(FIRST)} ${pick(LAST)} settled it in ${y + 2}.`,
        `A second period began in ${y}, when the work moved to ${pick(PLACES)} and the budget rose to ${int(2, 90)} million ${pick(["euros", "crowns", "dollars", "pounds"])}.`,
        `Letters kept at the ${pick(PLACES)} Library show that ${s.name} corresponded with ${who} for ${int(2, 30)} years.`,
      ];
      sentences.push(pick(templates));
      k++;
    }
    passages.push({
      id: `${prefix}:${i}`,
      title: s.name,
      text: sentences.join(" "),
      mentions: [...new Set(others.map((o) => o.name))],
    });
    questions.push(
      s.kind === "person"
        ? `Where was ${s.name} born and who did they correspond with?`
        : `When was ${s.name} established and who was involved?`,
    );
  }
  return { passages, questions };
}
