import type MarkdownIt from 'markdown-it';
import type { StateCore } from 'markdown-it';

type Markdown = InstanceType<typeof MarkdownIt>;
type Token = StateCore['tokens'][number];

/** What markdown-it-footnote records on its tokens, and the name given here. */
interface FootnoteMeta {
  /** The note's number, from 0, in the order it is first cited. */
  readonly id: number;
  /** Which citation of the note (0: the first), on a citation and on its link back. */
  readonly subId?: number;
  /** `late` for `[^late]`; absent for an inline note (`^[…]`). */
  readonly label?: string;
  name?: string;
}

/** GitHub's prefix for the ids of a rendered file, which it writes in front of every footnote id. */
const NOTE = 'user-content-fn-';
const CITATION = 'user-content-fnref-';

/**
 * Footnote ids as GitHub gives them (docs/distributor.md#pages):
 * `user-content-fn-late` on the note of `[^late]`,
 * `user-content-fnref-late` on its first citation, `…-late-2` on the
 * second, so a link copied from the file's view on GitHub
 * (`report.md#user-content-fn-late`) lands on the page as well. The names
 * come from `nameFootnotes`, which keeps every id of the page unique.
 */
export function footnoteIds(md: Markdown): void {
  const rules = md.renderer.rules;
  rules.footnote_ref = (tokens, index, options, env, self) => {
    const meta = metaOf(tokens[index]);
    const caption = self.rules.footnote_caption?.(tokens, index, options, env, self) ?? '';
    return `<sup class="footnote-ref"><a href="#${NOTE}${nameOf(meta)}" id="${CITATION}${citationName(meta)}">${caption}</a></sup>`;
  };
  rules.footnote_open = (tokens, index) =>
    `<li id="${NOTE}${nameOf(metaOf(tokens[index]))}" class="footnote-item">`;
  // ↩ followed by the text presentation selector: iOS would otherwise draw it as an emoji.
  rules.footnote_anchor = (tokens, index) =>
    ` <a href="#${CITATION}${citationName(metaOf(tokens[index]))}" class="footnote-backref">\u21a9\uFE0E</a>`;
}

/**
 * Names each note so that no id of the page is given twice: a heading keeps
 * its id (that is what authors link to, `#results`), and a note whose ids
 * would repeat one already taken — a heading `# User content fn 1`, the
 * second citation of `[^1]` against a note `[^1-2]` — is renamed `1-1`,
 * `1-2`, … until all of them are free. Notes are named in the order they
 * are numbered, so the same Markdown gives the same ids.
 */
export function nameFootnotes(tokens: readonly Token[], headingIds: ReadonlySet<string>): void {
  const notes = new Map<number, { label?: string; citations: number; readonly metas: FootnoteMeta[] }>();
  const visit = (list: readonly Token[]): void => {
    for (const token of list) {
      if (
        token.type === 'footnote_ref' ||
        token.type === 'footnote_open' ||
        token.type === 'footnote_anchor'
      ) {
        const meta = metaOf(token);
        const note = notes.get(meta.id) ?? { citations: 0, metas: [] };
        if (meta.label !== undefined) note.label = meta.label;
        if (token.type === 'footnote_ref') note.citations += 1;
        note.metas.push(meta);
        notes.set(meta.id, note);
      }
      if (token.children !== null) visit(token.children);
    }
  };
  visit(tokens);
  const taken = new Set(headingIds);
  for (const id of [...notes.keys()].sort((a, b) => a - b)) {
    const note = notes.get(id);
    if (note === undefined) continue;
    // An inline note has no label: its number stands in, as it is shown.
    const base = note.label === undefined ? String(id + 1) : encodeLabel(note.label);
    let name = base;
    for (let suffix = 1; idsOf(name, note.citations).some((one) => taken.has(one)); suffix += 1)
      name = `${base}-${suffix}`;
    for (const one of idsOf(name, note.citations)) taken.add(one);
    for (const meta of note.metas) meta.name = name;
  }
}

/** Every id a note named `name` with `citations` citations puts on the page. */
function idsOf(name: string, citations: number): readonly string[] {
  const ids = [`${NOTE}${name}`, `${CITATION}${name}`];
  for (let citation = 2; citation <= citations; citation += 1) ids.push(`${CITATION}${name}-${citation}`);
  return ids;
}

/**
 * The label as it can stand in an id and a link to it: ASCII letters,
 * digits, `-`, `_` and `.` as written, every other byte of its UTF-8
 * percent-encoded, as GitHub writes `[^ü]` (`fn-%C3%BC`). No two labels
 * encode alike, and nothing needs escaping in an attribute.
 */
function encodeLabel(label: string): string {
  let out = '';
  for (const byte of Buffer.from(label, 'utf8')) {
    const char = String.fromCharCode(byte);
    out += /[A-Za-z0-9_.-]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

function metaOf(token: Token | undefined): FootnoteMeta {
  const meta: unknown = token?.meta;
  if (typeof meta === 'object' && meta !== null && typeof (meta as { id?: unknown }).id === 'number')
    return meta as FootnoteMeta;
  return { id: 0 };
}

/** A page rendered without `nameFootnotes` still links each note to itself, by number. */
function nameOf(meta: FootnoteMeta): string {
  return meta.name ?? String(meta.id + 1);
}

function citationName(meta: FootnoteMeta): string {
  const subId = meta.subId ?? 0;
  return subId > 0 ? `${nameOf(meta)}-${subId + 1}` : nameOf(meta);
}
