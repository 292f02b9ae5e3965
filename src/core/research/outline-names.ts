/**
 * A_O without a model (seed 001, Eq. 2): sub-outlines from the references' shared names. Each
 * reference brings its names: the entities grounded in it (not people, venues or itself) and the
 * terms of its title (src/core/research/stats.ts titleWords). A name every reference holds names the
 * parent's topic, not a sub-direction, and is left out while another name is shared. Greedily, the
 * name held by the most references not yet in a direction (at least `minShared`; ties: entities
 * before terms, then the name) becomes a direction with those references, until `maxDirections`
 * directions or no name is shared by enough of the rest. Deterministic: same input, same outline.
 */
import { titleWords } from "./stats";

export interface NamedReference {
  id: string;
  title: string;
  /** Entity ids grounded in the reference. */
  entities: readonly string[];
}

export interface NameGroup {
  /** The name's label: an entity's display name or a title term. */
  label: string;
  /** The entity id or `term:<word>`. */
  name: string;
  references: string[];
}

const SKIP_ENTITY = /^(person|venue|author|org|organization):/;

export function groupByNames(
  refs: readonly NamedReference[],
  labels: ReadonlyMap<string, string>,
  o: { minShared: number; maxDirections: number },
): { groups: NameGroup[]; unassigned: string[] } {
  const holders = new Map<string, Set<string>>();
  const hold = (name: string, id: string) => {
    const s = holders.get(name) ?? new Set<string>();
    s.add(id);
    holders.set(name, s);
  };
  for (const r of refs) {
    for (const e of r.entities) if (e !== r.id && !SKIP_ENTITY.test(e)) hold(e, r.id);
    for (const w of titleWords(r.title)) hold(`term:${w}`, r.id);
  }
  const everyone = refs.length;
  const shared = [...holders].filter(([, s]) => s.size >= o.minShared);
  const narrow = shared.filter(([, s]) => s.size < everyone);
  const pool = new Map(narrow.length ? narrow : shared);

  const assigned = new Set<string>();
  const groups: NameGroup[] = [];
  const isTerm = (n: string) => n.startsWith("term:");
  while (groups.length < o.maxDirections) {
    let best: { name: string; free: string[] } | null = null;
    for (const [name, s] of pool) {
      const free = [...s].filter((id) => !assigned.has(id));
      if (free.length < o.minShared) continue;
      if (
        !best ||
        free.length > best.free.length ||
        (free.length === best.free.length &&
          (isTerm(best.name) && !isTerm(name) ? true : isTerm(best.name) === isTerm(name) && name < best.name))
      )
        best = { name, free };
    }
    if (!best) break;
    pool.delete(best.name);
    const order = new Map(refs.map((r, i) => [r.id, i]));
    const members = best.free.sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0));
    for (const id of members) assigned.add(id);
    const label = isTerm(best.name) ? best.name.slice(5) : (labels.get(best.name) ?? best.name);
    groups.push({ label, name: best.name, references: members });
  }
  return { groups, unassigned: refs.map((r) => r.id).filter((id) => !assigned.has(id)) };
}
