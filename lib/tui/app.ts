// The terminal UI: a blessed screen over the model. Keys go through the key table; every
// state change goes through lib/ (re-read, verify, recovery plans and their apply) and the
// store is read again after each; the views only lay out what the model holds.
// The only module that talks to the terminal, and only through blessed.

import fs from 'node:fs';
import path from 'node:path';
import blessed from 'blessed';
import type { Widgets } from 'blessed';
import { asCkptError, UsageError } from '../errors.js';
import type { Session } from '../session.js';
import { confirmDialog, line, menuDialog, messageDialog, renderDialog, type Dialog, type Line } from './dialog.js';
import { KEYS, bindingsFor, helpLines, lookup, normaliseKey, typedText, type Binding } from './keys.js';
import { Model, TABS, type JournalSource } from './model.js';
import { plan, resultLines, type RecoveryEnv, type Request } from './recovery.js';
import { canAddressCursor, resolveTerm, type TermEntry } from './terminfo.js';
import { StoreWatch } from './watch.js';
import { escapeTags, fit, painter, printable, untag, type Painter } from './text.js';
import { MIN_COLS, MIN_ROWS, footerLine, searchFooter, headerLines, listLines, listWidth, paintLines, tabBar, tabContent, tooSmallLines } from './views.js';

export interface TuiOptions {
  session: Session;
  /** Re-read the store with the same options. */
  reopen: () => Session;
  readOnly: boolean;
  color: boolean;
  /** --root ('/' on a live node): for recovery (interlocks) and the journal. */
  root: string;
  journal: JournalSource | null;
  /** $TERM and the environment for terminfo lookup. */
  term: string | undefined;
  env: Record<string, string | undefined>;
  /** Benchmarks: append JSON lines with the first-screen and per-key redraw times here. */
  timings?: string | null;
  /** Tests: bound the API server probe of recovery plans (ms; 0 skips it). */
  apiTimeoutMs?: number;
  input?: NodeJS.ReadStream;
  output?: NodeJS.WriteStream;
}

interface TputProto {
  readTerminfo(term?: string): unknown;
  parseTerminfo(data: Buffer, file: string): unknown;
}

/** Blessed reads terminfo files by itself (and falls back to its package folder): give it our bytes. */
function installTerminfo(entry: TermEntry, env: Record<string, string | undefined>): void {
  const Tput = (blessed as unknown as { Tput: { prototype: TputProto } }).Tput;
  Tput.prototype.readTerminfo = function (this: TputProto, term?: string) {
    const want = term ? path.basename(term) : entry.name;
    const e = want === entry.name ? entry : resolveTerm(want, env);
    return this.parseTerminfo(e.data, e.from);
  };
}

function timingWriter(file: string | null | undefined): (rec: Record<string, unknown>) => void {
  return (rec) => {
    if (!file) return;
    try {
      fs.appendFileSync(file, `${JSON.stringify(rec)}\n`);
    } catch {
      /* benchmarks only */
    }
  };
}

export async function runTui(o: TuiOptions): Promise<number> {
  const timing = timingWriter(o.timings);
  timing({ event: 'phase', name: 'session', ms: performance.now() });
  const entry = resolveTerm(o.term, o.env);
  // Found by review: TERM=dumb garbled the screen (every row drawn into the last) and left text behind.
  if (!canAddressCursor(entry.data)) throw new UsageError(`tui needs a terminal that can move the cursor: TERM=${o.term ?? ''} (${entry.from}) cannot`, 'set TERM to your terminal (e.g. xterm, linux, vt100), or use the commands: kubelet-ckpt status, ls, verify, diff, journal', 'NO_TTY');
  installTerminfo(entry, o.env);
  const m = new Model({ session: o.session, reopen: o.reopen, readOnly: o.readOnly, journal: o.journal });
  timing({ event: 'phase', name: 'model', ms: performance.now() });
  const bindings = bindingsFor(o.readOnly);
  const screen = blessed.screen({
    smartCSR: true,
    fullUnicode: true,
    warnings: false,
    autoPadding: false,
    terminal: entry.name,
    title: 'kubelet-ckpt',
    input: o.input ?? process.stdin,
    output: o.output ?? process.stdout,
  });
  timing({ event: 'phase', name: 'screen', ms: performance.now() });
  const p = painter(o.color, (screen as unknown as { tput: { colors?: number } }).tput.colors ?? 8);
  const ui = new Ui(screen, m, bindings, p, o, timing);
  return ui.run();
}

const box = (screen: Widgets.Screen, extra: Widgets.BoxOptions = {}) => blessed.box({ parent: screen, tags: true, wrap: false, top: 0, left: 0, width: 1, height: 1, ...extra });

class Ui {
  private header: Widgets.BoxElement;
  private list: Widgets.BoxElement;
  private sep: Widgets.BoxElement;
  private tabs: Widgets.BoxElement;
  private content: Widgets.BoxElement;
  private footer: Widgets.BoxElement;
  private dialogBox: Widgets.BoxElement;
  private small: Widgets.BoxElement;
  private dialog: Dialog | null = null;
  private prompt: string | null = null;
  /** The search being typed (`/` in a tab); null when not typing. */
  private searchPrompt: string | null = null;
  /** Lines of the tab that hold the searched text, and which of them was jumped to. */
  private matches: { key: string; at: number[]; current: number } | null = null;
  private notice: string | null = null;
  private busy = false;
  private cache: { key: string; lines: string[] } | null = null;
  private contentHeight = 1;
  private sweep: NodeJS.Timeout | null = null;
  private storeWatch: StoreWatch | null = null;
  private done!: (code: number) => void;
  private firstScreen = false;

  constructor(
    private screen: Widgets.Screen,
    private m: Model,
    private bindings: Binding[],
    private p: Painter,
    private o: TuiOptions,
    private timing: (rec: Record<string, unknown>) => void,
  ) {
    this.header = box(screen);
    this.list = box(screen);
    this.sep = box(screen);
    this.tabs = box(screen);
    this.content = box(screen);
    this.footer = box(screen);
    this.small = box(screen, { hidden: true });
    this.dialogBox = box(screen, { hidden: true, border: { type: 'line' }, style: o.color ? { border: { fg: 'cyan' } } : {} });
  }

  run(): Promise<number> {
    return new Promise<number>((resolve) => {
      this.done = resolve;
      this.screen.program.hideCursor();
      this.screen.on('keypress', (ch: string | undefined, key: Widgets.Events.IKeyEventArg | undefined) => this.onKey(ch, key));
      this.screen.on('resize', () => this.render());
      for (const sig of ['SIGTERM', 'SIGHUP'] as const) process.once(sig, () => this.finish(0));
      this.render();
      // After the first screen: a store of 1,000 UIDs is 1,000 directory watchers to set up.
      setImmediate(() => this.watch());
      this.startSweep();
      this.trialClock = setInterval(() => this.trialTick(), 1000);
      this.trialClock.unref();
    });
  }

  /**
   * The trial's countdown ticks on screen, and when the trial ends the store is read again, so
   * the header and the Meta tab say what status says (found by review: the clock stood still,
   * and after the end the screen still said "in trial").
   */
  private trialClock: NodeJS.Timeout | null = null;

  private trialTick(): void {
    const trial = this.m.status.trial;
    if (this.finished || this.dialog || !trial?.inTrial) return;
    if (Date.parse(trial.endsAt) <= Date.now()) this.reload(false);
    this.render();
  }

  private finish(code: number): void {
    this.finished = true;
    if (this.trialClock) clearInterval(this.trialClock);
    if (this.sweep) clearTimeout(this.sweep);
    this.storeWatch?.close();
    try {
      this.screen.destroy();
    } catch {
      /* the terminal may be gone (SSH dropped) */
    }
    this.done(code);
  }

  // ---- background work -------------------------------------------------------------------------

  private startSweep(): void {
    if (this.sweep) clearTimeout(this.sweep);
    let drawn = 0;
    const tick = () => {
      this.sweep = null;
      let more = false;
      try {
        more = this.m.verifyStep(20);
      } catch (err) {
        const why = asCkptError(err).message;
        this.m.sweepFailed(why);
        this.notice = `verify stopped: ${why}`;
      }
      // Markers and the progress in the header: redrawn a few times a second, and at the end.
      if (!more || performance.now() - drawn > 150) {
        drawn = performance.now();
        this.render();
      }
      if (more) this.sweep = setTimeout(tick, 0);
      else this.timing({ event: 'verified', ms: performance.now(), checkpoints: this.m.verifyTotal });
    };
    this.sweep = setTimeout(tick, 0);
  }

  /** Notice changes on disk (the kubelet writes meta files, adds and deletes checkpoints). */
  /** finish() ran: nothing more is started (the first watch waits for the first screen). */
  private finished = false;

  private watch(): void {
    if (this.finished) return;
    this.storeWatch?.close();
    this.storeWatch = new StoreWatch(this.m.session.snap.storeDir, () => {
      if (this.m.stale) return;
      this.m.stale = true;
      this.render();
    });
    this.storeWatch.start();
  }

  /** Read the store again; false when that failed (the last good read stays on screen). */
  private reload(journal: boolean): boolean {
    // Watched again first: a meta/ or checkpoints/ that was missing (a reset makes meta/), or a UID
    // directory made since, is watched from now on (found by review: only the first watch was
    // made), and a change while the store is read marks it stale (found by review: changes in the
    // 400 ms after a re-read were dropped).
    if (this.storeWatch) this.watch();
    const ok = this.m.reload(journal);
    this.cache = null;
    this.startSweep();
    return ok;
  }

  private loadJournalIfShown(): void {
    if (TABS[this.m.tab] !== 'Timeline' || this.m.journal.state !== 'idle') return;
    void this.m.loadJournal().then(() => this.render());
  }

  // ---- drawing -----------------------------------------------------------------------------------

  private render(): void {
    try {
      this.draw();
      this.screen.render();
    } catch (err) {
      // Drawing must never take the terminal down with it; say what went wrong instead.
      this.notice = `display error: ${asCkptError(err).message}`;
    }
    if (!this.firstScreen) {
      this.firstScreen = true;
      this.timing({ event: 'first-screen', ms: performance.now() });
    }
  }

  private place(el: Widgets.BoxElement, top: number, left: number, width: number, height: number, lines: string[]): void {
    el.top = top;
    el.left = left;
    el.width = Math.max(1, width);
    el.height = Math.max(1, height);
    el.setContent(lines.join('\n'));
    el.show();
  }

  private draw(): void {
    const cols = this.screen.width as number;
    const rows = this.screen.height as number;
    const p = this.p;
    if (cols < MIN_COLS || rows < MIN_ROWS) {
      for (const el of [this.header, this.list, this.sep, this.tabs, this.content, this.footer, this.dialogBox]) el.hide();
      this.place(this.small, 0, 0, cols, rows, tooSmallLines(cols, rows).map((l) => p.paint(l)));
      return;
    }
    this.small.hide();
    const lw = listWidth(cols);
    const cw = cols - lw - 1;
    // The tab first: drawing it may find the selection gone from disk, which the header shows.
    const lines = this.contentLines(cw);
    const now = new Date();
    const header = headerLines(this.m, cols, p, now, rows);
    if (this.notice) header[0] = p.paint(fit(printable(this.notice), cols), 'bold');
    const top = header.length;
    const bodyH = rows - top - 1;
    const ch = bodyH - 1;
    this.contentHeight = ch;
    this.place(this.header, 0, 0, cols, top, header);
    this.place(this.list, top, 0, lw, bodyH, listLines(this.m, lw, bodyH, p));
    const bar = (this.screen.program as unknown as { tput?: { unicode?: boolean } }).tput?.unicode === false ? '|' : '│';
    this.place(this.sep, top, lw, 1, bodyH, Array.from({ length: bodyH }, () => p.paint(bar, 'dim')));
    const maxScroll = Math.max(0, lines.length - ch);
    this.m.scroll = Math.max(0, Math.min(this.m.scroll, maxScroll));
    const found = this.matchesIn(lines);
    const pos = lines.length > ch ? `${this.m.scroll + 1}-${Math.min(lines.length, this.m.scroll + ch)}/${lines.length}${this.m.focus === 'content' ? '' : ' Enter'} ` : '';
    this.place(this.tabs, top, lw + 1, cw, 1, [tabBar(this.m, cw, p, pos)]);
    const hits = new Set(found?.at ?? []);
    const view = lines.slice(this.m.scroll, this.m.scroll + ch).map((l, i) => (hits.has(this.m.scroll + i) ? p.paint(untag(l), 'inverse') : l));
    while (view.length < ch) view.push(' '.repeat(cw));
    this.place(this.content, top + 1, lw + 1, cw, ch, view);
    const foot = this.searchPrompt !== null ? searchFooter(this.searchPrompt, found?.at.length ?? 0, cols, p) : footerLine(this.bindings, this.m, cols, p, this.prompt, found && { current: found.current, total: found.at.length });
    this.place(this.footer, rows - 1, 0, cols, 1, [foot]);
    if (this.dialog) {
      const d = renderDialog(this.dialog, cols, rows, p);
      // Escaped as the body is: a directory name holding {invisible} must not hide part of the target (found by review).
      this.dialogBox.setLabel(` ${escapeTags(printable(this.dialog.title))} `);
      this.place(this.dialogBox, Math.max(0, Math.floor((rows - d.height) / 2)), Math.max(0, Math.floor((cols - d.width) / 2)), d.width, d.height, d.lines);
      this.dialogBox.setFront();
    } else this.dialogBox.hide();
  }

  /** The lines of the tab that hold the searched text (case-insensitive), cached per content and text. */
  private matchesIn(lines: string[]): { at: number[]; current: number } | null {
    const text = this.m.search.toLowerCase();
    if (!text) return null;
    const key = `${this.cache?.key ?? ''}|${text}`;
    if (this.matches?.key !== key) {
      const at: number[] = [];
      lines.forEach((l, i) => {
        if (untag(l).toLowerCase().includes(text)) at.push(i);
      });
      // The first match at or below the top of the view.
      const from = at.findIndex((i) => i >= this.m.scroll);
      this.matches = { key, at, current: Math.max(0, from) };
    }
    return this.matches;
  }

  /** Scroll to the next (1) or previous (-1) line holding the searched text, wrapping around. */
  private jumpToMatch(dir: 1 | -1 | 0): void {
    const found = this.matchesIn(this.cache?.lines ?? []);
    if (!found || !found.at.length) return;
    found.current = (found.current + dir + found.at.length) % found.at.length;
    // Two lines of context above the match.
    this.m.scroll = Math.max(0, found.at[found.current]! - 2);
  }

  private contentLines(cw: number): string[] {
    const m = this.m;
    const sel = m.selected();
    const tab = TABS[m.tab]!;
    // m.stale: once a change on disk is noticed, the tab looks again for what was removed.
    const key = [tab, sel?.id ?? '', m.raw, m.unified, m.storeTimeline, m.mark ?? '', cw, m.generation, m.stale, tab === 'Timeline' ? m.journalVersion : 0, tab === 'Findings' && sel && !m.verified.has(sel.id) ? m.verifyVersion : 0, tab === 'Findings' && m.storeChecked, tab === 'Findings' ? m.sweepError ?? '' : ''].join('|');
    if (this.cache?.key === key) return this.cache.lines;
    let lines: string[];
    try {
      lines = paintLines(tabContent(m, cw), cw, this.p);
    } catch (err) {
      lines = paintLines([{ text: `cannot show this: ${printable(asCkptError(err).message)}`, styles: ['red'] }], cw, this.p);
    }
    this.cache = { key, lines };
    return lines;
  }

  // ---- keys ----------------------------------------------------------------------------------------

  private onKey(ch: string | undefined, key: Widgets.Events.IKeyEventArg | undefined): void {
    const k = normaliseKey(ch, key);
    if (!k) return;
    const t0 = performance.now();
    try {
      this.handle(k);
    } catch (err) {
      this.dialog = messageDialog('error', [line(printable(asCkptError(err).message), 'red')]);
    }
    this.render();
    this.timing({ event: 'key', key: k, ms: performance.now() - t0 });
  }

  private handle(k: string): void {
    const cols = this.screen.width as number;
    const rows = this.screen.height as number;
    if (k === 'C-c') return this.finish(0);
    if (cols < MIN_COLS || rows < MIN_ROWS) {
      if (k === 'q') this.finish(0);
      return;
    }
    if (this.notice && !this.busy) this.notice = null;
    if (this.dialog) return this.dialogKey(k);
    if (this.prompt !== null) return this.filterKey(k);
    if (this.searchPrompt !== null) return this.searchKey(k);
    const b = lookup(this.bindings, k, this.m.focus);
    if (!b) {
      // A key read-only mode unbound: say why nothing happens.
      const off = this.m.readOnly ? lookup(KEYS, k, this.m.focus) : null;
      if (off?.dangerous) this.notice = `${off.key.split(', ')[0]} (${off.footer ?? off.action}) changes files: not available in read-only mode (--read-only)`;
      return;
    }
    this.act(b, k);
  }

  private act(b: Binding, k: string): void {
    const m = this.m;
    const page = Math.max(1, (m.focus === 'content' ? this.contentHeight : this.contentHeight + 1) - 1);
    const down = k === 'down' || k === 'j' || k === 'pagedown' || k === 'end' || k === 'G';
    switch (b.action) {
      case 'quit':
        return this.finish(0);
      case 'help':
        this.dialog = this.helpDialog();
        return;
      case 'move':
        if (m.focus === 'content') m.scroll += down ? 1 : -1;
        else m.move(down ? 1 : -1);
        return;
      case 'page':
        if (m.focus === 'content') m.scroll += down ? page : -page;
        else m.move(down ? page : -page);
        return;
      case 'jump':
        if (m.focus === 'content') m.scroll = down ? Number.MAX_SAFE_INTEGER : 0;
        else m.setCursor(down ? m.selectable.length - 1 : 0);
        return;
      case 'focus':
        m.focus = m.focus === 'list' ? 'content' : 'list';
        return;
      case 'focus-content':
        m.focus = 'content';
        return;
      case 'back':
        // Back to the list first, as the help says; a search kept in the tab goes with it (found by review: Left only dropped the search).
        if (m.focus === 'content') {
          m.focus = 'list';
          m.search = '';
        } else if (m.search) m.search = '';
        else if (m.filter.source) m.setFilter('');
        return;
      case 'search':
        this.searchPrompt = '';
        m.search = '';
        return;
      case 'search-next':
        if (!m.search) this.notice = '/ searches this tab first; then n and N move between the lines found';
        this.jumpToMatch(k === 'N' ? -1 : 1);
        return;
      case 'cycle-tab':
        m.tab = (m.tab + (k === 'S-tab' ? TABS.length - 1 : 1)) % TABS.length;
        m.scroll = 0;
        this.loadJournalIfShown();
        return;
      case 'tab':
        m.tab = Number(k) - 1;
        m.scroll = 0;
        this.loadJournalIfShown();
        return;
      case 'filter':
        this.prompt = m.filter.source;
        return;
      case 'mark':
        m.toggleMark();
        return;
      case 'toggle':
        if (TABS[m.tab] === 'Payload') m.raw = !m.raw;
        else if (TABS[m.tab] === 'Diff') m.unified = !m.unified;
        else if (TABS[m.tab] === 'Timeline') m.storeTimeline = !m.storeTimeline;
        else this.notice = 't switches the Payload tab (pretty / raw), the Diff tab (semantic / unified) and the Timeline (selection / whole store)';
        m.scroll = 0;
        return;
      case 'verify':
        this.reload(false);
        this.notice = this.m.loadError ? null : 'store read again; verifying every checkpoint';
        return;
      case 'reload':
        this.reload(true);
        this.loadJournalIfShown();
        return;
      case 'rollback':
        return this.recover({ kind: 'rollback' });
      case 'undo':
        return this.recover({ kind: 'undo' });
      case 'prune':
        return this.recover({ kind: 'prune' });
      case 'reset':
        this.dialog = this.resetMenu();
        return;
      default:
        return;
    }
  }

  private searchKey(k: string): void {
    const b = lookup(this.bindings, k, 'search');
    const typed = typedText(k);
    if (b?.action === 'accept') this.searchPrompt = null;
    else if (b?.action === 'cancel') {
      this.searchPrompt = null;
      this.m.search = '';
    } else if (b?.action === 'erase' || typed !== null) {
      const text = this.searchPrompt ?? '';
      this.searchPrompt = b?.action === 'erase' ? text.slice(0, -1) : text + typed;
      this.m.search = this.searchPrompt;
      // Incremental: from the top of the tab to the first line holding what is typed so far.
      this.m.scroll = 0;
      this.matches = null;
      this.jumpToMatch(0);
    }
  }

  private filterKey(k: string): void {
    const b = lookup(this.bindings, k, 'filter');
    if (b?.action === 'accept') this.prompt = null;
    else if (b?.action === 'cancel') {
      this.prompt = null;
      this.m.setFilter('');
    } else if (b?.action === 'erase') {
      this.prompt = this.prompt!.slice(0, -1);
      this.m.setFilter(this.prompt);
    } else {
      const typed = typedText(k);
      if (typed === null) return;
      this.prompt += typed;
      this.m.setFilter(this.prompt!);
    }
  }

  private dialogKey(k: string): void {
    const d = this.dialog!;
    const b = lookup(this.bindings, k, 'dialog');
    if (this.busy) return;
    if (!b) {
      // A menu item by its number.
      if (d.menu && /^[1-9]$/.test(k) && Number(k) <= d.menu.items.length) {
        d.menu.index = Number(k) - 1;
        this.choose(d);
      }
      return;
    }
    const n = d.buttons.length;
    switch (b.action) {
      case 'button': {
        const back = k === 'left' || k === 'h' || k === 'S-tab';
        const first = d.menu ? -1 : 0;
        const next = d.focus + (back ? -1 : 1);
        d.focus = next < first ? n - 1 : next > n - 1 ? first : next;
        return;
      }
      case 'move': {
        const down = k === 'down' || k === 'j' || k === 'pagedown';
        if (d.menu) {
          // Choosing in a menu changes nothing yet (a confirmation follows), so the arrows take the menu.
          d.focus = -1;
          d.menu.index = Math.max(0, Math.min(d.menu.items.length - 1, d.menu.index + (down ? 1 : -1)));
          return;
        }
        const page = k === 'pageup' || k === 'pagedown' ? Math.max(1, (this.screen.height as number) - 8) : 1;
        d.scroll += down ? page : -page;
        return;
      }
      case 'cancel':
        this.closeDialog(d);
        return;
      case 'press': {
        if (d.menu && d.focus < 0) return this.choose(d);
        const button = d.buttons[d.focus];
        if (!button || button.role !== 'confirm') return this.closeDialog(d);
        void this.confirm(d);
        return;
      }
      default:
        return;
    }
  }

  private closeDialog(d: Dialog): void {
    const wasConfirm = d.buttons.some((x) => x.role === 'confirm') || !!d.menu;
    this.dialog = null;
    if (wasConfirm) this.notice = 'cancelled: nothing was changed';
  }

  private choose(d: Dialog): void {
    const item = d.menu!.items[d.menu!.index];
    this.dialog = null;
    if (item && d.onConfirm) void d.onConfirm(item.value);
  }

  private async confirm(d: Dialog): Promise<void> {
    this.busy = true;
    this.dialog = messageDialog(d.title, [line('applying…')]);
    this.dialog.buttons = [];
    this.render();
    try {
      await d.onConfirm?.();
    } finally {
      this.busy = false;
      this.render();
    }
  }

  // ---- dialogs -------------------------------------------------------------------------------------

  private helpDialog(): Dialog {
    const lines: Line[] = [line('Markers: * marked for diff, A assigned, L last-known-good, B boots next, ! errors, ? warnings.', 'dim'), line('')];
    const groups = helpLines(this.bindings, this.m.readOnly);
    const keyWidth = Math.max(...groups.flatMap((g) => g.rows.map((r) => r.key.length)));
    for (const g of groups) {
      lines.push(line(g.title, 'bold'));
      for (const r of g.rows) lines.push(line(`  ${r.key.padEnd(keyWidth)}  ${r.help}`));
      lines.push(line(''));
    }
    return messageDialog('keys', lines);
  }

  private resetMenu(): Dialog {
    const sel = this.m.selected();
    const items = [
      { label: 'assigned := local (an empty meta/assigned)', value: 'assigned|local' },
      { label: 'last-known-good := local', value: 'last-known-good|local' },
      { label: 'all := local (both; as when Node.Spec.ConfigSource is removed)', value: 'all|local' },
    ];
    if (sel) {
      items.push({ label: `assigned := ${printable(sel.id)}`, value: `assigned|${sel.id}` });
      items.push({ label: `last-known-good := ${printable(sel.id)}`, value: `last-known-good|${sel.id}` });
      items.push({ label: `all := ${printable(sel.id)}`, value: `all|${sel.id}` });
    }
    return menuDialog('reset', [line('Rewrite which meta file(s), to what? A confirmation with the exact bytes follows.')], items, (value) => {
      // Split at the first `|` only: a UID may hold one (found by review: `a|b/5` planned `a`).
      const v = value ?? '';
      const cut = v.indexOf('|');
      this.recover({ kind: 'reset', which: v.slice(0, cut) as 'assigned' | 'last-known-good' | 'all', to: v.slice(cut + 1) });
    });
  }

  private recover(req: Request): void {
    if (this.busy) return;
    this.busy = true;
    this.notice = `${req.kind}: reading the store and making the plan…`;
    this.render();
    void this.planAndShow(req).finally(() => {
      this.busy = false;
      this.notice = null;
      this.render();
    });
  }

  /** Plan from the store as it is now (not as last read) and show the confirmation, or why not. */
  private async planAndShow(req: Request): Promise<void> {
    try {
      // Never from the last read when this one fails (found by review: a store moved away was
      // planned from memory, and the action offered).
      if (!this.reload(false)) {
        this.dialog = messageDialog(`${req.kind}: refused`, [line(`the store could not be read again: ${printable(this.m.loadError ?? 'unknown error')}`, 'red'), line(''), line('Nothing was changed by the TUI.', 'dim')]);
        return;
      }
      const env: RecoveryEnv = { session: this.m.session, root: this.o.root };
      if (this.o.apiTimeoutMs !== undefined) env.apiTimeoutMs = this.o.apiTimeoutMs;
      // The journal given to the TUI names UIDs as `--journal` does for the CLI, whether or not
      // its tab was shown (found by review: a reset was refused until the Timeline was opened).
      if (this.m.journal.state !== 'off') env.journalNames = () => this.journalNames();
      const planned = await plan(env, req);
      if (planned.confirm) {
        this.dialog = confirmDialog(planned.title, planned.lines, planned.confirm, async () => {
          try {
            const result = await planned.apply();
            this.reload(false);
            this.dialog = messageDialog(`${planned.title}: done`, resultLines(result));
          } catch (err) {
            this.dialog = messageDialog(`${planned.title}: failed`, errorLines(err, this.reload(false)));
          }
        });
      } else if (planned.restart) {
        // Refused only because the kubelet runs: offer the CLI's --restart-kubelet, planned and confirmed anew.
        const again = planned.restart;
        this.dialog = confirmDialog(planned.title, planned.lines, 'Restart kubelet', () => this.planAndShow(again));
      } else this.dialog = messageDialog(planned.title, planned.lines);
    } catch (err) {
      this.dialog = messageDialog(`${req.kind}: refused`, errorLines(err, true));
    }
  }

  /** The journal's UID → ConfigMap names, loaded first when its tab was never shown. */
  private async journalNames(): Promise<Model['journal']['names']> {
    await this.m.loadJournal();
    return this.m.journal.names;
  }
}

/** `reread`: whether the store was read again after the failure (the screen shows it as it is). */
function errorLines(err: unknown, reread: boolean): Line[] {
  const e = asCkptError(err);
  const out = [line(printable(e.message), 'red')];
  if (e.hint) out.push(line(`hint: ${printable(e.hint)}`, 'dim'));
  out.push(line(''), line(reread ? 'The store was read again; nothing else was changed by the TUI.' : 'The store could not be read again; nothing else was changed by the TUI.', 'dim'));
  return out;
}
