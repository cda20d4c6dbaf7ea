// Text rendering of `diff`: a change list an SRE can paste into an incident channel, the
// unified diff when asked for (or when the semantic one is impossible), and a history view
// in the manner of `git log -p`.

import type { DiffReport, FieldChange, HistoryReport, HistoryStep, PairReport } from '../diff/report.js';
import { listEdits } from '../diff/lists.js';
import { formatPath, quote } from '../diff/path.js';
import { printable, printableBlock } from './sanitize.js';
import { isObject, sortedKeys, type Value } from '../diff/value.js';
import type { Palette } from './streams.js';
import { Verbatim, sanitizeForText, sanitizesItself, type TextContext } from './print.js';

export interface DiffTextOptions {
  /** -u / -U N: print the unified diff instead of the change list. */
  unified: boolean;
  /** Escape control characters of a pair's `-u` diff (stdout is a terminal; piped, it is an exact patch). Everything else is always escaped. */
  sanitize: boolean;
}

/** Past this depth nested values are elided; past this many lines a block is cut short. */
const MAX_DEPTH = 12;
const MAX_BLOCK_LINES = 200;

/** One line of a file's content, made safe for a terminal (tabs kept). */
export const sanitizeLine = printableBlock;

function keyText(k: string): string {
  const p = formatPath([k]);
  return p.startsWith('[') ? quote(k) : p;
}

function scalar(v: Value): string {
  return typeof v === 'string' ? quote(v) : String(v);
}

/** Lists and maps can be broken over lines; a scalar cannot, however long. */
function isComposite(v: Value): boolean {
  return typeof v === 'object' && v !== null;
}

/** One-line (flow) form, or null when it would be longer than `budget` characters. */
export function inline(v: Value, budget: number): string | null {
  let out = '';
  const emit = (s: string): boolean => {
    out += s;
    return out.length <= budget;
  };
  const walk = (x: Value, depth: number): boolean => {
    if (Array.isArray(x)) {
      if (depth >= MAX_DEPTH) return emit('[…]');
      if (!emit('[')) return false;
      for (let i = 0; i < x.length; i++) if (!(i === 0 || emit(', ')) || !walk(x[i]!, depth + 1)) return false;
      return emit(']');
    }
    if (isObject(x)) {
      if (depth >= MAX_DEPTH) return emit('{…}');
      if (!emit('{')) return false;
      const keys = sortedKeys(x);
      for (let i = 0; i < keys.length; i++) {
        if (!(i === 0 || emit(', ')) || !emit(`${keyText(keys[i]!)}: `) || !walk(x[keys[i]!]!, depth + 1)) return false;
      }
      return emit('}');
    }
    return emit(scalar(x));
  };
  return walk(v, 0) ? out : null;
}

/** YAML-like block lines for a value too wide for one line. */
export function block(v: Value, indent: string, width: number): string[] {
  const lines: string[] = [];
  const walk = (x: Value, pad: string, depth: number): void => {
    // The caller found `x` too wide for one line; its members get that chance again.
    if (lines.length > MAX_BLOCK_LINES) return;
    if (depth >= MAX_DEPTH) {
      lines.push(`${pad}${Array.isArray(x) ? '[…]' : '{…}'}`);
      return;
    }
    if (Array.isArray(x)) {
      for (const item of x) {
        const flat = inline(item, Math.max(20, width - pad.length - 2));
        if (flat !== null || !isComposite(item)) lines.push(`${pad}- ${flat ?? scalar(item)}`);
        else {
          lines.push(`${pad}-`);
          walk(item, `${pad}    `, depth + 1);
        }
      }
      return;
    }
    if (isObject(x)) {
      for (const k of sortedKeys(x)) {
        const head = `${pad}${keyText(k)}:`;
        const flat = inline(x[k]!, Math.max(20, width - head.length - 1));
        if (flat !== null || !isComposite(x[k]!)) lines.push(`${head} ${flat ?? scalar(x[k]!)}`);
        else {
          lines.push(head);
          walk(x[k]!, `${pad}  `, depth + 1);
        }
      }
      return;
    }
    lines.push(`${pad}${scalar(x)}`);
  };
  walk(v, indent, 0);
  if (lines.length > MAX_BLOCK_LINES) return [...lines.slice(0, MAX_BLOCK_LINES), `${indent}… (${lines.length - MAX_BLOCK_LINES}+ more lines; see -o json)`];
  return lines;
}

const SIGN = { added: '+', removed: '-', changed: '~' } as const;

function colourOf(p: Palette, op: FieldChange['op']): (s: string) => string {
  return op === 'added' ? p.green : op === 'removed' ? p.red : p.yellow;
}

/** The lines of one change, indented by `pad`. */
export function renderChange(c: FieldChange, p: Palette, width: number, pad = '  '): string[] {
  const colour = colourOf(p, c.op);
  const head = `${pad}${colour(SIGN[c.op])} ${p.bold(c.path || '(whole document)')}:`;
  const headLen = pad.length + 2 + (c.path || '(whole document)').length + 1;
  const dflt = (yes: boolean) => (yes ? p.dim(' (default)') : '');
  const sub = `${pad}    `;
  if (c.op !== 'changed') {
    const v = c.op === 'added' ? c.to : c.from;
    const mark = c.op === 'added' ? dflt(c.defaulted.to) : dflt(c.defaulted.from);
    const flat = inline(v, width - headLen - 1);
    if (flat !== null) return [`${head} ${colour(flat)}${mark}`];
    return [`${head}${mark}`, ...block(v, sub, width).map((l) => colour(l))];
  }
  if (Array.isArray(c.from) && Array.isArray(c.to)) {
    const lines = [head];
    for (const e of listEdits(c.from, c.to)) {
      const flat = inline(e.value, width - sub.length - 2) ?? `${(inline(e.value, 10_000) ?? '…').slice(0, Math.max(10, width - sub.length - 3))}…`;
      if (e.op === 'same') lines.push(p.dim(`${sub}  ${flat}`));
      else lines.push((e.op === 'added' ? p.green : p.red)(`${sub}${e.op === 'added' ? '+' : '-'} ${flat}`));
    }
    return lines;
  }
  const from = inline(c.from, width);
  const to = inline(c.to, width);
  if (from !== null && to !== null && headLen + 1 + from.length + 4 + to.length <= width) {
    return [`${head} ${p.red(from)}${dflt(c.defaulted.from)} -> ${p.green(to)}${dflt(c.defaulted.to)}`];
  }
  const side = (sign: string, v: Value, colour: (s: string) => string, d: boolean): string[] => {
    const flat = inline(v, width - sub.length - 2);
    if (flat !== null) return [colour(`${sub}${sign} ${flat}`) + dflt(d)];
    return [colour(`${sub}${sign}`) + dflt(d), ...block(v, `${sub}    `, width).map((l) => colour(l))];
  };
  return [head, ...side('-', c.from, p.red, c.defaulted.from), ...side('+', c.to, p.green, c.defaulted.to)];
}

/** "5 changes (1 added, 4 changed)" */
export function summary(changes: readonly FieldChange[]): string {
  if (changes.length === 0) return 'no changes';
  const n = { added: 0, removed: 0, changed: 0 };
  for (const c of changes) n[c.op]++;
  const parts = (['added', 'removed', 'changed'] as const).filter((op) => n[op] > 0).map((op) => `${n[op]} ${op}`);
  return `${changes.length} change${changes.length === 1 ? '' : 's'} (${parts.join(', ')})`;
}

/** The unified diff, coloured like `git diff`. */
export function renderUnified(text: string, p: Palette, sanitize: boolean): string[] {
  if (!text) return [];
  return text.replace(/\n$/, '').split('\n').map((raw) => {
    const l = sanitize ? sanitizeLine(raw) : raw;
    if (l.startsWith('--- ') || l.startsWith('+++ ')) return p.bold(l);
    if (l.startsWith('@@')) return p.cyan(l);
    if (l.startsWith('+')) return p.green(l);
    if (l.startsWith('-')) return p.red(l);
    return l;
  });
}

function renderPair(r: PairReport, ctx: TextContext, o: DiffTextOptions): string {
  const { p, width } = ctx;
  // -q: one line either way, so a script or a person sees the verdict without the exit code.
  if (ctx.quiet) {
    if (r.equal) return `${r.from.label} and ${r.to.label} are the same: ${r.identicalBytes ? 'identical content' : 'no semantic differences'}`;
    return `${r.from.label} and ${r.to.label} differ: ${r.semantic ? summary(r.changes) : 'not comparable field by field'}`;
  }
  if (o.unified) return renderUnified(r.unified, p, o.sanitize).join('\n');
  const lines = [p.bold(`--- ${r.from.label}`), p.bold(`+++ ${r.to.label}`)];
  for (const n of r.notes) lines.push(p.yellow(`note: ${printable(n)}`));
  if (!r.semantic) {
    // Under our own headings it is no patch: always made safe (only `-u` on a pair is exact when piped).
    lines.push(...renderUnified(r.unified, p, true).slice(r.unified.startsWith('--- ') ? 2 : 0));
    return lines.join('\n');
  }
  const applied = r.defaults ? 'v1beta1 defaults applied to both sides' : null;
  if (r.changes.length === 0) {
    if (r.identicalBytes) lines.push(`no differences (identical content${applied ? `, ${applied}` : ''})`);
    else lines.push(`no semantic differences${applied ? `, ${applied}` : ''}; the files differ only in formatting or spelling (-u shows the text diff)`);
    return lines.join('\n');
  }
  lines.push(`${summary(r.changes)}${applied ? ` (${applied})` : ''}:`);
  for (const c of r.changes) lines.push(...renderChange(c, p, width));
  return lines.join('\n');
}

function versionTag(r: HistoryReport, rv: string): string {
  const v = r.versions.find((x) => x.resourceVersion === rv);
  const tags = [v?.assigned ? 'assigned' : '', v?.lastKnownGood ? 'last-known-good' : ''].filter(Boolean);
  return printable(tags.length ? `${rv} [${tags.join(', ')}]` : rv);
}

function renderStep(r: HistoryReport, s: HistoryStep, ctx: TextContext, o: DiffTextOptions): string[] {
  const { p, width } = ctx;
  const title = `${versionTag(r, s.from.resourceVersion!)} -> ${versionTag(r, s.to.resourceVersion!)}`;
  const verdict = s.semantic ? (s.changes.length ? summary(s.changes) : 'no semantic changes') : s.equal ? 'identical content' : 'not comparable field by field';
  const lines = [`${p.bold(title)}: ${verdict}`];
  if (ctx.quiet) return lines;
  for (const n of s.notes) lines.push(p.yellow(`  note: ${printable(n)}`));
  if (s.semantic && !o.unified) for (const c of s.changes) lines.push(...renderChange(c, p, width));
  // A history's steps, -u or not, are no patch to apply: always made safe.
  else if (s.unified) lines.push(...renderUnified(s.unified, p, true).map((l) => (o.unified ? l : `  ${l}`)));
  return lines;
}

function renderHistory(r: HistoryReport, ctx: TextContext, o: DiffTextOptions): string {
  const { p } = ctx;
  const cm = r.configMap ? ` (${r.configMap})` : '';
  const n = r.versions.length;
  const head = p.bold(`history of ${printable(r.uid)}${printable(cm)}: ${n} resourceVersion${n === 1 ? '' : 's'}${r.defaults ? ', v1beta1 defaults applied' : ''}`);
  if (r.steps.length === 0) {
    const rv = r.versions[0]!.resourceVersion;
    const why = r.unread.find((u) => u.resourceVersion === rv);
    if (why) return `${head}\n${p.yellow(`note: ${versionTag(r, rv)} could not be read: ${printable(why.error)}`)}`;
    return `${head}\nonly ${versionTag(r, rv)}: no history to compare (to compare it with assigned: ${ctx.self ?? 'kubelet-ckpt'} diff ${printable(`${r.uid}/${rv}`)})`;
  }
  const out = [head];
  for (const s of r.steps) out.push(...(ctx.quiet ? [] : ['']), ...renderStep(r, s, ctx, o));
  return out.join('\n');
}

export function renderDiff(o: DiffTextOptions): (r: DiffReport, ctx: TextContext) => string {
  return sanitizesItself((raw: DiffReport, ctx: TextContext) => {
    const r = safeReport(raw);
    return r.mode === 'history' ? renderHistory(r, ctx, o) : renderPair(r, ctx, o);
  });
}

/**
 * The report with every string made printable but the changes' values, which scalar() and
 * inline() quote (quote escapes what a terminal must not see): sanitized first, then quoted,
 * an ESC read as the text \x1b and a tab as two spaces, so `"a<ESC>b" -> "a\x1bb"` printed as
 * two identical sides (found by review).
 */
function safeReport(r: DiffReport): DiffReport {
  type C = FieldChange;
  const wrap = (cs: C[]) => cs.map((c) => ({ ...c, from: new Verbatim(c.from), to: new Verbatim(c.to) }) as unknown as C);
  const unwrap = (cs: C[]) => cs.map((c) => ({ ...c, from: (c.from as unknown as Verbatim<Value>).value, to: (c.to as unknown as Verbatim<Value>).value }));
  if (r.mode === 'history') {
    const safe = sanitizeForText({ ...r, steps: r.steps.map((s) => ({ ...s, changes: wrap(s.changes) })) });
    return { ...safe, steps: safe.steps.map((s) => ({ ...s, changes: unwrap(s.changes) })) };
  }
  const safe = sanitizeForText({ ...r, changes: wrap(r.changes) });
  return { ...safe, changes: unwrap(safe.changes) };
}
