// What each part of the screen shows, as lines of blessed-tagged text of an exact width.
// Every fact comes from lib/ (show, diff, verify, journal, meta decoding, next boot); these
// functions only lay it out. Disk content is made printable and escaped before it is styled.

import { jsYaml } from '../config/js-yaml.js';
import { CkptError, asCkptError } from '../errors.js';
import { buildShow } from '../store/show.js';
import { decodeMetaState } from '../store/meta.js';
import { META_NAMES } from '../store/types.js';
import { countBySeverity, type Finding } from '../integrity/findings.js';
import { decodeDocument } from '../diff/decode.js';
import { diffRefs } from '../diff/pair.js';
import { renderDiff, renderUnified } from '../output/diff.js';
import { palette } from '../output/streams.js';
import { nextBootTarget, nextBootVerdict, promotionText } from '../output/status.js';
import { humanBytes } from '../output/time.js';
import { eventText, shortRef } from '../journal/render.js';
import { isFailure, type JournalEvent } from '../journal/events.js';
import { footerItems, type Binding } from './keys.js';
import type { Model } from './model.js';
import { TABS } from './model.js';
import { renderRow, type CheckpointRow } from './rows.js';
import { clip, fit, printable, width as textWidth, wrap, wrapWords, type Painter, type Style } from './text.js';

/** Smallest screen the layout works in; below it a message says so. */
export const MIN_COLS = 60;
export const MIN_ROWS = 15;
/**
 * Rows the checkpoint list keeps however long the next-boot reason is: the header grows with the
 * reason (it is the answer), but on a short terminal the list must still be usable.
 */
export const MIN_LIST_ROWS = 6;
/** Ends the reason when the list's rows leave no room for the rest of it. */
const CUT_HINT = ' (5 Meta: in full)';

/** How many rows the next boot may take: all the screen but the list's minimum, the footer and the two other header lines. */
export function nextBootRoom(rows: number): number {
  return Math.max(1, rows - 1 - 2 - MIN_LIST_ROWS);
}

/** The next-boot line(s): the reason wrapped whole, or, past `room` rows, cut with a pointer to the Meta tab that shows it all. */
function nextBootRows(text: string, cols: number, room: number): string[] {
  const wrapped = wrapWords(text, cols, '  ');
  if (wrapped.length <= room) return wrapped;
  const rest = wrapped.slice(room - 1).map((w, i) => (i ? w.trim() : w)).join(' ');
  return [...wrapped.slice(0, room - 1), clip(rest, cols - CUT_HINT.length) + CUT_HINT];
}

export function listWidth(cols: number): number {
  return Math.max(24, Math.min(44, Math.floor(cols * 0.36)));
}

/** A content line: plain text plus styles, painted and fitted when drawn. */
export interface Out {
  text: string;
  styles?: Style[];
  /** File content is cut at the width and continued on the next line, exactly; prose wraps at words. */
  exact?: boolean;
}

/** Prose: wrapped at words, continuation lines indented like the first. */
const o = (text: string, ...styles: Style[]): Out => ({ text, styles });
/** File content (payload, bytes, diff lines): wrapped exactly at the width. */
const x = (text: string, ...styles: Style[]): Out => ({ text, styles, exact: true });

function shortId(uid: string, rv: string): string {
  return `${printable(uid.slice(0, 8))}/${printable(rv)}`;
}

function sevCount(c: { error: number; warning: number }): string {
  if (c.error + c.warning === 0) return 'none';
  return [c.error ? `${c.error} error${c.error === 1 ? '' : 's'}` : '', c.warning ? `${c.warning} warning${c.warning === 1 ? '' : 's'}` : ''].filter(Boolean).join(', ');
}

function minutesLeft(endsAt: string, now: Date): string {
  const ms = Date.parse(endsAt) - now.getTime();
  if (ms <= 0) return '';
  const m = Math.floor(ms / 60000);
  const s = Math.floor((ms % 60000) / 1000);
  return `${m}m${String(s).padStart(2, '0')}s left`;
}

// ---- header ------------------------------------------------------------------------------------

/** The header for a `cols` x `rows` screen: store line, next boot (as many rows as its reason needs, see nextBootRoom), trial and problems. */
export function headerLines(m: Model, cols: number, p: Painter, now: Date, rows = Infinity): string[] {
  const st = m.status;
  const flags: { text: string; styles: Style[] }[] = [];
  if (m.readOnly) flags.push({ text: 'READ-ONLY', styles: ['bold'] });
  if (m.stale && !m.loadError) flags.push({ text: 'changed on disk: R reloads', styles: ['yellow', 'bold'] });
  const flagText = flags.map((f) => f.text).join('  ');
  const left = `kubelet-ckpt  ${printable(st.store)}`;
  const l1room = cols - (flagText ? Math.min(textWidth(flagText), Math.floor(cols / 2)) + 2 : 0);
  let l1 = p.paint(fit(left, l1room), 'bold');
  if (flagText) l1 += '  ' + flags.map((f) => p.paint(clip(f.text, Math.floor(cols / 2)), ...f.styles)).join('  ');
  // A failed re-read matters more than the path: it takes the whole line.
  if (m.loadError) l1 = p.paint(fit(`cannot re-read the store (R retries; showing the last read): ${printable(m.loadError)}`, cols), 'red', 'bold');

  const nb = st.nextBoot;
  const target = nextBootTarget(nb, true);
  const v = nextBootVerdict(nb);
  const verdict = v.text;
  const vStyle: Style[] = [v.tone === 'good' ? 'green' : v.tone === 'bad' ? 'red' : 'yellow', 'bold'];
  const l2head = `Next boot: ${target ? `${printable(target)} ` : ''}`;
  const wrapped = nextBootRows(`${l2head}${verdict} - ${printable(nb.reason)}`, cols, nextBootRoom(rows));
  const l2 = wrapped.map((w, i) => {
    if (i > 0 || !w.startsWith(l2head + verdict)) return p.paint(fit(w, cols));
    return p.paint(l2head) + p.paint(verdict, ...vStyle) + p.paint(fit(w.slice(l2head.length + verdict.length), Math.max(0, cols - textWidth(l2head) - verdict.length)));
  });

  const parts: { text: string; styles: Style[] }[] = [];
  if (st.trial) {
    const left2 = st.trial.inTrial ? minutesLeft(st.trial.endsAt, now) : '';
    parts.push(st.trial.inTrial ? { text: `Trial: until ${st.trial.endsAt.slice(11, 19)}Z${left2 ? ` (${left2})` : ''}`, styles: ['yellow'] } : { text: `Trial: over ${st.trial.endsAt.slice(11, 19)}Z`, styles: [] });
  } else parts.push({ text: 'Trial: -', styles: [] });
  const c = m.problemCount();
  const progress = m.verifying ? ` (verifying ${Math.floor((100 * m.verifyDone) / Math.max(1, m.verifyTotal))}%)` : '';
  const stopped = m.sweepError !== null ? ' (verify stopped)' : '';
  parts.push(m.storeChecked ? { text: `Problems: ${sevCount(c)}${progress}${stopped}`, styles: c.error ? ['red'] : c.warning ? ['yellow'] : [] } : { text: stopped ? 'Problems: not checked' : 'Problems: checking…', styles: stopped ? ['yellow'] : [] });
  parts.push(st.checkpointsUnreadable !== null ? { text: 'checkpoints unreadable', styles: ['red'] } : { text: `${st.checkpoints} checkpoint${st.checkpoints === 1 ? '' : 's'}`, styles: [] });
  let l3 = '';
  let used = 0;
  for (const part of parts) {
    const sep = used ? '  |  ' : '';
    const room = cols - used - sep.length;
    if (room <= 0) break;
    const t = clip(part.text, room);
    l3 += p.paint(sep) + p.paint(t, ...part.styles);
    used += sep.length + textWidth(t);
  }
  l3 += ' '.repeat(Math.max(0, cols - used));
  return [l1, ...l2, l3];
}

// ---- list, tabs, footer ------------------------------------------------------------------------

export function listLines(m: Model, w: number, height: number, p: Painter): string[] {
  const out: string[] = [];
  if (m.selectable.length === 0) {
    const why = m.rows.length === 0 ? ['no checkpoints', 'in this store'] : ['nothing matches', 'the filter', '(Esc clears it)'];
    for (const t of why) out.push(p.paint(fit(` ${t}`, w), 'dim'));
    while (out.length < height) out.push(' '.repeat(w));
    return out;
  }
  const top = m.windowFor(height);
  const sel = m.selectable[m.cursor];
  for (let i = 0; i < height; i++) {
    const idx = m.shown[top + i];
    if (idx === undefined) {
      out.push(' '.repeat(w));
      continue;
    }
    const r = m.rows[idx]!;
    if (r.kind === 'uid') out.push(renderRow(r, { width: w, selected: false, focused: false, marked: false, verify: undefined, p }));
    else out.push(renderRow(r, { width: w, selected: idx === sel, focused: m.focus === 'list', marked: m.mark === r.id, verify: m.stateOf(r.id), p }));
  }
  return out;
}

export function tabBar(m: Model, cols: number, p: Painter, position: string): string {
  let s = '';
  let used = 0;
  // The current tab always shows; when not all fit, a hint says how to reach the others.
  const all = TABS.map((name, i) => ` ${i + 1} ${name} `);
  const fits = all.reduce((n, l) => n + l.length, 0) <= cols;
  const hint = fits ? '' : ` ${TABS.length - 1} more: Tab, 1-${TABS.length}`;
  const labels = fits ? all.map((l, i) => ({ l, i })) : [{ l: all[m.tab]!, i: m.tab }];
  for (const { l: label, i } of labels) {
    if (used + label.length > cols) break;
    s += i === m.tab ? p.paint(label, 'inverse', 'bold') : p.paint(label);
    used += label.length;
  }
  if (hint && used + hint.length <= cols) {
    s += p.paint(hint, 'dim');
    used += hint.length;
    position = '';
  }
  const pos = position && used + position.length + 1 <= cols ? position : '';
  return s + ' '.repeat(Math.max(0, cols - used - pos.length)) + p.paint(pos, 'dim');
}

/** Lines found by a kept search, for the footer: which one is in view, of how many. */
export interface SearchState {
  current: number;
  total: number;
}

export function footerLine(bindings: readonly Binding[], m: Model, cols: number, p: Painter, prompt: string | null, found: SearchState | null = null): string {
  if (prompt !== null) {
    const errors = m.filter.errors.length ? `  ${m.filter.errors[0]}` : '';
    const count = `  ${m.selectable.length} match${m.selectable.length === 1 ? '' : 'es'}`;
    const head = `/${printable(prompt)}_`;
    const tail = `${count}${errors}  Enter keep, Esc drop`;
    return p.paint(fit(head, Math.min(cols, Math.max(20, cols - tail.length))), 'bold') + p.paint(fit(tail, Math.max(0, cols - Math.min(cols, Math.max(20, cols - tail.length)))), errors ? 'red' : 'dim');
  }
  let s = '';
  let used = 0;
  if (m.filter.terms.length || m.filter.errors.length) {
    const f = clip(`[/${printable(m.filter.source)}: ${m.selectable.length}]`, Math.floor(cols / 3));
    s += p.paint(f, 'bold') + ' ';
    used += textWidth(f) + 1;
  }
  if (m.search && found) {
    const f = clip(`[search ${printable(m.search)}: ${found.total ? `${found.current + 1}/${found.total}, n N` : 'none'}]`, Math.floor(cols / 3));
    s += p.paint(f, 'bold', ...(found.total ? [] : (['red'] as Style[]))) + ' ';
    used += textWidth(f) + 1;
  }
  const items = footerItems(bindings, cols - used);
  items.forEach((it, i) => {
    const sep = i ? '  ' : '';
    s += sep + p.paint(it.key, 'bold') + ' ' + p.paint(it.label);
    used += sep.length + it.key.length + 1 + it.label.length;
  });
  return s + ' '.repeat(Math.max(0, cols - used));
}

/** The footer while a search is typed: `/text_  3 lines  Enter keep, Esc drop`. */
export function searchFooter(text: string, found: number, cols: number, p: Painter): string {
  const head = `/${printable(text)}_`;
  const tail = `  ${text ? `${found} line${found === 1 ? '' : 's'}` : 'type to search this tab'}  Enter keep, Esc drop`;
  const room = Math.min(cols, Math.max(20, cols - tail.length));
  return p.paint(fit(head, room), 'bold') + p.paint(fit(tail, Math.max(0, cols - room)), text && !found ? 'red' : 'dim');
}

// ---- the tabs ------------------------------------------------------------------------------------

/** Wrap, paint and pad content lines to `cols`. */
export function paintLines(lines: readonly Out[], cols: number, p: Painter): string[] {
  const out: string[] = [];
  for (const l of lines) {
    const indent = l.exact ? '' : (/^ */.exec(l.text)![0] ?? '').slice(0, Math.floor(cols / 2)) + '  ';
    const parts = l.exact ? wrap(l.text, cols) : wrapWords(l.text, cols, indent);
    for (const w of parts) out.push(p.paint(fit(w, cols), ...(l.styles ?? [])));
  }
  return out;
}

function errorLines(err: unknown, what: string): Out[] {
  const e = asCkptError(err);
  const lines = [o(`${what}: ${printable(e.message)}`, 'red')];
  if (e instanceof CkptError && e.hint) lines.push(o(`hint: ${printable(e.hint)}`, 'dim'));
  return lines;
}

/** What a checkpoint gone from disk since the store was read shows instead (the kubelet deletes old checkpoints): not an error. */
function removedLines(r: CheckpointRow, what = ''): Out[] {
  return [o(`${what}${shortId(r.uid, r.rv)} was removed from disk after the store was read (the kubelet deletes checkpoints it no longer needs); R reads the store again`, 'yellow')];
}

/** The selection is not there any more: say so, not an error. */
function gone(m: Model, r: CheckpointRow): Out[] | null {
  if (m.selectedCheckpoint() && m.onDisk(r)) return null;
  return removedLines(r);
}

function hexDump(b: Buffer, cols: number, max = 64 * 1024): Out[] {
  const per = cols >= 78 ? 16 : 8;
  const out: Out[] = [];
  for (let i = 0; i < Math.min(b.length, max); i += per) {
    const chunk = b.subarray(i, i + per);
    const hex = [...chunk].map((x) => x.toString(16).padStart(2, '0')).join(' ').padEnd(per * 3 - 1);
    const asc = [...chunk].map((x) => (x >= 0x20 && x < 0x7f ? String.fromCharCode(x) : '.')).join('');
    out.push(x(`${i.toString(16).padStart(8, '0')}  ${hex}  |${asc}|`));
  }
  if (b.length > max) out.push(o(`… ${b.length - max} more bytes`, 'dim'));
  return out;
}

function textLines(text: string): Out[] {
  return text.replace(/\n$/, '').split('\n').map((l) => x(printable(l)));
}

export function payloadTab(m: Model, r: CheckpointRow, cols: number): Out[] {
  const missing = gone(m, r);
  if (missing) return missing;
  const s = m.session;
  const cp = m.selectedCheckpoint()!;
  const files = cp.files.map((f) => `${printable(f.name)} (${humanBytes(f.size)})`).join(', ') || 'no files';
  let show;
  try {
    show = buildShow(s.snap, s.reader, r.id, { localConfig: s.local.path });
  } catch (err) {
    return [o(`files: ${files}`, 'dim'), ...errorLines(err, 'cannot show the payload')];
  }
  const head: Out[] = [
    x(`${printable(r.uid)}/${printable(r.rv)}`, 'bold'),
    o(`key ${printable(show.key ?? '?')}  ${humanBytes(show.size)}  sha256 ${show.sha256.slice(0, 12)}`, 'bold'),
  ];
  if (cp.files.length > 1) head.push(o(`files: ${files}`, 'dim'));
  head.push(o(m.raw ? 'the bytes as written (t: decoded)' : 'decoded as the kubelet reads it, as YAML, keys sorted (t: the bytes as written)', 'dim'));
  head.push(o(''));
  if (show.size === 0) return [...head, o('(empty file)', 'dim')];
  if (show.text === null) return [...head, o('not UTF-8 text: a hex dump of the bytes', 'yellow'), ...hexDump(show.bytes, cols)];
  if (m.raw) return [...head, ...textLines(show.text)];
  const d = decodeDocument(show.bytes);
  if (!d.ok) return [...head, o(`not decodable (${printable(d.error)}); the bytes as written:`, 'yellow'), ...textLines(show.text)];
  let pretty: string;
  try {
    // Keys sorted whatever the source's order (JSON payloads keep theirs when decoded).
    pretty = jsYaml().dump(d.value, { lineWidth: -1, noRefs: true, sortKeys: true });
  } catch (err) {
    return [...head, o(`cannot print as YAML (${printable((err as Error).message)}); the bytes as written:`, 'yellow'), ...textLines(show.text)];
  }
  return [...head, ...textLines(pretty)];
}

function colourDiffLine(l: string): Out {
  const t = l.trimStart();
  if (l.startsWith('--- ') || l.startsWith('+++ ')) return x(printable(l), 'bold');
  if (l.startsWith('@@')) return x(printable(l), 'cyan');
  if (t.startsWith('+')) return x(printable(l), 'green');
  if (t.startsWith('-')) return x(printable(l), 'red');
  if (t.startsWith('~')) return x(printable(l), 'yellow');
  return x(printable(l));
}

export function diffTab(m: Model, r: CheckpointRow, cols: number): Out[] {
  const marked = m.mark && m.mark !== r.id ? m.checkpointRow(m.mark) : null;
  const baseRow = marked ?? m.previousOf(r);
  const how = marked ? 'against the marked checkpoint' : 'against the previous resourceVersion';
  if (!baseRow) {
    return [
      o(`${shortId(r.uid, r.rv)} is the first resourceVersion of its UID: there is nothing before it.`),
      o(m.mark === r.id ? 'It is the marked checkpoint; select another one to compare it with this.' : 'Mark another checkpoint with m (or this one, then select another) to compare them.', 'dim'),
    ];
  }
  const s = m.session;
  const missing = gone(m, r);
  if (missing) return missing;
  // Else diff would blame the base for lacking the very file it names.
  if (!m.onDisk(baseRow)) return removedLines(baseRow, marked ? 'the marked checkpoint ' : 'the previous resourceVersion ');
  let report;
  try {
    report = diffRefs({ snap: s.snap, reader: s.reader, localConfig: s.local.path }, baseRow.id, r.id, { version: s.version, context: 3 });
  } catch (err) {
    return errorLines(err, `cannot compare ${baseRow.id} with ${r.id}`);
  }
  const head = [o(`${m.unified ? 'unified' : 'semantic'} diff ${how} (t: ${m.unified ? 'semantic' : 'unified'})`, 'dim')];
  const plain = palette(false);
  if (m.unified) {
    const lines = renderUnified(report.unified, plain, true);
    return [...head, ...(lines.length ? lines.map(colourDiffLine) : [o('no differences in the text', 'dim')])];
  }
  const text = renderDiff({ unified: false, sanitize: true })(report, { p: plain, width: cols, verbose: false, quiet: false });
  return [...head, ...text.split('\n').map(colourDiffLine)];
}

function findingLines(fs: readonly Finding[], cols: number): Out[] {
  const out: Out[] = [];
  for (const f of fs) {
    const sev = f.severity === 'error' ? 'error  ' : f.severity === 'warning' ? 'warning' : 'info   ';
    out.push(o(`${sev}  ${f.code}${f.path ? `  ${printable(f.path)}` : ''}`, f.severity === 'error' ? 'red' : f.severity === 'warning' ? 'yellow' : 'cyan'));
    out.push(o(`    ${printable(f.message)}`));
  }
  return out;
}

export function findingsTab(m: Model, r: CheckpointRow, cols: number): Out[] {
  const missing = gone(m, r);
  const out: Out[] = [];
  if (missing) out.push(...missing);
  else {
    const fs = m.findingsOf(r.id);
    const c = countBySeverity(fs);
    const problems = c.error + c.warning ? sevCount(c) : 'no errors or warnings';
    out.push(o(`${shortId(r.uid, r.rv)}: ${problems}${c.info ? `, ${c.info} info` : ''}`, 'bold'));
    out.push(o(`the checks of kubelet-ckpt verify ${printable(r.id)} (v verifies again)`, 'dim'));
    out.push(...findingLines(fs, cols));
  }
  out.push(o(''));
  if (!m.storeChecked) {
    if (m.sweepError !== null) out.push(o('Store-wide (meta files, store layout, next boot): not checked', 'bold'), o(`verify stopped: ${printable(m.sweepError)}; v reads the store again, or run kubelet-ckpt verify`, 'dim'));
    else out.push(o('Store-wide (meta files, store layout, next boot): checking…', 'bold'), o('the store is still being read; this part fills in when it is', 'dim'));
    return out;
  }
  out.push(o(`Store-wide (meta files, store layout, next boot): ${m.storeFindings.length ? sevCount(countBySeverity(m.storeFindings)) : 'none'}`, 'bold'));
  out.push(...findingLines(m.storeFindings, cols));
  return out;
}

/** At most this many events in the store-wide timeline (the newest); the rest are counted. */
export const STORE_TIMELINE_MAX = 2000;

function eventLines(e: JournalEvent): Out[] {
  const time = e.time ? `${e.time.slice(5, 10)} ${e.time.slice(11, 19)}` : '-';
  const ref = shortRef(e);
  const head = `${isFailure(e) ? '!' : ' '} ${time}  ${e.kind}${ref ? `  ${ref}` : ''}`;
  return [o(head, ...(isFailure(e) ? (['red'] as Style[]) : [])), o(`    ${printable(eventText(e))}`, 'dim')];
}

export function timelineTab(m: Model, r: CheckpointRow | null, cols: number): Out[] {
  const j = m.journal;
  if (j.state === 'off') return [o('the journal is not read (--no-journal)', 'dim')];
  if (j.state === 'idle' || j.state === 'loading') return [o('reading the journal…', 'dim')];
  if (j.state === 'error' || !j.result) return [o(`journal not available: ${printable(j.error ?? 'unknown error')}`, 'yellow'), o('give a saved journal with --file F, or a journald directory with --journal-dir D', 'dim')];
  const res = j.result;
  const label = res.events[0]?.source ?? 'journal';
  const out: Out[] = [
    o(`${printable(label)}: ${res.events.length} events, ${res.restarts} restart${res.restarts === 1 ? '' : 's'}${res.crashLoop ? ', CRASH LOOP' : ''}`, ...(res.crashLoop ? (['red', 'bold'] as Style[]) : (['dim'] as Style[]))),
  ];
  if (m.storeTimeline || !r) {
    // Every event, also those naming no checkpoint (bootstrap failures, the feature gate, restarts).
    const from = Math.max(0, res.events.length - STORE_TIMELINE_MAX);
    out.push(o(`the whole store${r ? ' (t: only the selection)' : ''}${from ? `; the newest ${STORE_TIMELINE_MAX}, ${from} earlier not shown` : ''}`, 'bold'));
    if (!res.events.length) out.push(o('no kubelet config events in the journal', 'dim'));
    for (let i = from; i < res.events.length; i++) out.push(...eventLines(res.events[i]!));
    return out;
  }
  const mine: number[] = [];
  let others = 0;
  res.events.forEach((e, i) => {
    const about = e.uid ?? j.concerns[i] ?? null;
    if (about !== r.uid) return;
    if (e.resourceVersion === null || e.resourceVersion === r.rv) mine.push(i);
    else others++;
  });
  const sum = res.checkpoints.find((c) => c.uid === r.uid && c.resourceVersion === r.rv);
  if (sum && sum.events) out.push(o(`${shortId(r.uid, r.rv)}: ${sum.events} event${sum.events === 1 ? '' : 's'}, first ${sum.firstSeen ?? '-'}, last ${sum.lastSeen ?? '-'} (t: the whole store)`, 'bold'));
  if (!mine.length) out.push(o(`no journal events about ${shortId(r.uid, r.rv)} (t: the whole store)`, 'dim'));
  for (const i of mine) out.push(...eventLines(res.events[i]!));
  if (others) out.push(o(`(${others} more event${others === 1 ? '' : 's'} name other resourceVersions of this UID)`, 'dim'));
  return out;
}

function modeText(mode: number): string {
  return (mode & 0o7777).toString(8).padStart(4, '0');
}

export function metaTab(m: Model, cols: number): Out[] {
  const s = m.session;
  const st = m.status;
  const nb = st.nextBoot;
  const out: Out[] = [];
  const target = nextBootTarget(nb);
  out.push(o(`Next boot: ${target ? `${printable(target)}, ` : ''}${nextBootVerdict(nb).text}`, 'bold'));
  out.push(o(`  ${printable(nb.reason)}`));
  if (nb.statusError) out.push(o(`  Node.Status.Config.Error: ${JSON.stringify(nb.statusError)}`, 'yellow'));
  // status's words: a trial that ended hours ago is not "once its trial is over".
  const promotion = promotionText(st);
  if (promotion) out.push(o(`  ${promotion}`, 'dim'));
  for (const name of META_NAMES) {
    const meta = s.snap.meta[name];
    const e = meta.entry;
    out.push(o(''));
    const kind = e.kind === 'file' ? 'file' : e.kind === 'symlink' ? `symbolic link to ${printable(e.linkTarget ?? '?')}` : e.kind;
    const facts = e.kind === 'missing' ? 'missing (the kubelet creates it empty: local config)' : `${kind}  mode ${modeText(e.mode)}  uid ${e.uid}  ${e.size} bytes  modified ${new Date(e.mtimeMs).toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z')}`;
    out.push(o(`meta/${name}`, 'bold'));
    out.push(o(`  ${facts}`));
    const d = decodeMetaState(meta, s.judgeOptions.version);
    if (d.state === 'source') out.push(o(`  names ${printable(d.source.namespace)}/${printable(d.source.name)} ${printable(d.source.uid)}/${printable(d.source.resourceVersion)} key ${printable(d.source.kubeletConfigKey)}`, 'green'));
    else if (d.state === 'empty') out.push(o('  empty: the local config'));
    else if (d.state === 'error' || d.state === 'unreadable') out.push(o(`  ${printable(d.error)}`, 'red'));
    const c = meta.content;
    if (c?.ok && c.bytes.length) {
      const text = c.bytes.toString('utf8');
      const valid = Buffer.from(text, 'utf8').equals(c.bytes);
      out.push(o(`  bytes${c.truncated ? ` (the first ${c.bytes.length} of ${c.size})` : ''}:`, 'dim'));
      if (valid) for (const l of text.replace(/\n$/, '').split('\n')) out.push(x(`  | ${printable(l)}`));
      else out.push(...hexDump(c.bytes, cols - 2).map((h) => x(`  ${h.text}`)));
      if (!text.endsWith('\n') && valid) out.push(o('  (no newline at end)', 'dim'));
    }
  }
  const others = s.snap.metaOthers;
  if (others.length) {
    out.push(o(''));
    out.push(o(`also in meta/: ${others.map((x) => printable(x.name)).join(', ')}`, 'yellow'));
  }
  return out;
}

/** The lines of the current tab for the selection. */
export function tabContent(m: Model, cols: number): Out[] {
  const r = m.selected();
  const name = TABS[m.tab]!;
  if (name === 'Meta') return metaTab(m, cols);
  if (!r && name === 'Timeline') return timelineTab(m, null, cols);
  if (!r) return [o(m.rows.length ? 'nothing selected (the filter hides every checkpoint)' : 'this store holds no checkpoints', 'dim'), ...(name === 'Findings' ? findingsTab0(m, cols) : [])];
  switch (name) {
    case 'Payload':
      return payloadTab(m, r, cols);
    case 'Diff':
      return diffTab(m, r, cols);
    case 'Findings':
      return findingsTab(m, r, cols);
    case 'Timeline':
      return timelineTab(m, r, cols);
  }
}

function findingsTab0(m: Model, cols: number): Out[] {
  if (!m.storeChecked) return [o(''), o(m.sweepError !== null ? `Store-wide: not checked (verify stopped: ${printable(m.sweepError)})` : 'Store-wide: checking…', 'bold')];
  return [o(''), o(`Store-wide: ${m.storeFindings.length ? sevCount(countBySeverity(m.storeFindings)) : 'none'}`, 'bold'), ...findingLines(m.storeFindings, cols)];
}

// ---- too small ---------------------------------------------------------------------------------

export function tooSmallLines(cols: number, rows: number): string[] {
  const text = `The terminal is ${cols}x${rows}; kubelet-ckpt tui needs at least ${MIN_COLS}x${MIN_ROWS}. Make it larger, or use the commands: kubelet-ckpt status, ls, verify, diff. q quits.`;
  const lines = wrapWords(text, Math.max(1, cols));
  return lines.slice(0, Math.max(1, rows)).map((l) => fit(l, cols));
}
