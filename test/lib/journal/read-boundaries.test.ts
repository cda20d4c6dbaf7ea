// Where a read ends must not change a result: a file is read in 128 KiB reads, stdin and
// journalctl in chunks that end anywhere. The same bytes in chunks of random sizes give the
// result of the file read, and the lines the scanner treats specially at a read's end (a line
// of exactly MAX_LINE bytes, a marker cut inside a line being dropped) come out the same at
// every alignment.
import t from 'tap';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { readJournal, type ReadJournalOptions } from '../../../lib/journal/index.js';
import { BUF_SIZE, MAX_LINE, READ_SIZE, WATCH_LINES } from '../../../lib/journal/scan.js';

const FIX = path.resolve(import.meta.dirname, '../../../fixtures/journals');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kckpt-boundaries-'));
t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A small deterministic generator (the same files on every run). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

t.test('every fixture journal, each format, reads the same in chunks of any size', async (t) => {
  for (const f of fs.readdirSync(FIX).filter((f) => !f.endsWith('.gz') && !f.endsWith('.export'))) {
    // Repeated, with quiet stretches between, so that reads end in every kind of line.
    const text = fs.readFileSync(path.join(FIX, f), 'utf8');
    const file = path.join(dir, `fixture-${f}`);
    const quiet = f.includes('json') ? '{"MESSAGE":"nothing here","_PID":"77"}\n' : 'Aug 01 00:00:00 worker-1 containerd[77]: nothing here\n';
    fs.writeFileSync(file, [text, quiet.repeat(3000), text, quiet.repeat(50), text].join(''));
    await sameInChunks(t, file, f.length);
  }
});

const UID = '7a0c1f4e-5b2d-4c3e-9f10-1a2b3c4d5e6f';
const API = '/api/v1/namespaces/kube-system/configmaps/node-config-a';

/** Quiet lines of other daemons, random lengths. */
function quiet(r: () => number, n: number, at: string): string[] {
  return Array.from({ length: n }, () => `${at} worker-1 containerd[77]: level=info msg="quiet ${'x'.repeat(Math.floor(r() * 300))}"`);
}

/**
 * A random kubelet journal (syslog `short`): quiet stretches of random length between stories
 * that each exercise a piece of the scanner's state: watch windows ending just before or after
 * a `valid configuration` line, multi-line messages with other daemons' lines inside, overlong
 * and huge lines, CRLF, blank lines, a last line with or without a newline.
 */
function randomJournal(seed: number, stories: number): string {
  const r = rng(seed);
  const out: string[] = [];
  let pid = 1000;
  const at = 'Aug 01 10:00:00';
  const pre = (ident: string, p: number) => `${at} worker-1 ${ident}[${p}]: `;
  const k = (sev: string, file: string) => `${sev}0801 10:00:00.123456 ${String(pid).padStart(7)} ${file}] `;
  for (let i = 0; i < stories; i++) {
    out.push(...quiet(r, r() < 0.3 ? Math.floor(r() * 5) : Math.floor(r() * 1500), at));
    const x = r();
    if (x < 0.2) out.push(pre('kubelet', pid) + k('E', 'configsync.go:89') + 'kubelet config controller: failed to sync: failed to download config, see Kubelet log for details, error: configmaps "x" not found');
    else if (x < 0.3) out.push(pre('kubelet', pid) + k('I', 'fsstore.go:116') + `kubelet config controller: loading Kubelet configuration checkpoint for source ${API}, UID: ${UID}, ResourceVersion: ${Math.floor(r() * 5)}`);
    else if (x < 0.5) {
      // A start opens a window of WATCH_LINES lines; the bootstrap failure comes inside it or just outside.
      pid++;
      out.push(`${at} worker-1 systemd[1]: Started kubelet: The Kubernetes Node Agent.`);
      out.push(pre('kubelet', pid) + k('I', 'controller.go:101') + 'kubelet config controller: starting controller');
      out.push(...quiet(r, WATCH_LINES - 3 + Math.floor(r() * 6), at));
      out.push(pre('kubelet', pid) + k('F', 'server.go:262') + 'failed to run Kubelet: failed to determine a valid configuration');
    } else if (x < 0.65) {
      // A legacy multi-line error: its body on the lines after it, other daemons' lines in between.
      out.push(pre('kubelet', pid) + k('E', 'fsstore.go:120') + `kubelet config controller: failed to load config, see Kubelet log for details, error: failed to decode: Object 'Kind' is missing in '{`);
      for (let j = 0; j < 1 + Math.floor(r() * 4); j++) {
        out.push(...quiet(r, Math.floor(r() * 20), at));
        out.push(pre('kubelet', pid) + `  "maxPods": ${j},`);
      }
      out.push(pre('kubelet', pid) + `}'`);
    } else if (x < 0.7) out.push(pre('kubelet', pid) + 'W' + '-'.repeat(MAX_LINE + Math.floor(r() * 1000)) + (r() < 0.5 ? ' fig co' : ''));
    else if (x < 0.72) out.push(pre('kubelet', pid) + 'huge ' + 'y'.repeat(BUF_SIZE + Math.floor(r() * 1000)) + (r() < 0.5 ? ' ynamic' : ''));
    else if (x < 0.8) out.push(pre('kubelet', pid) + 'a valid configuration, said out of a window');
    else if (x < 0.9) out.push(pre('kubelet', pid) + k('W', 'server.go:200') + 'DynamicKubeletConfig is deprecated\r');
    else out.push('', '   ', pre('sshd', 90) + 'Accepted publickey');
  }
  return out.join('\n') + (r() < 0.5 ? '\n' : '');
}

t.test('random journals read the same in chunks of any size', async (t) => {
  for (let seed = 1; seed <= 8; seed++) {
    const file = path.join(dir, `random-${seed}.log`);
    fs.writeFileSync(file, randomJournal(seed, 20 + seed * 10));
    await sameInChunks(t, file, seed);
  }
});

t.test('a line being dropped (overlong) and a message being continued, then events', async (t) => {
  const r = rng(7);
  const at = 'Aug 01 10:00:00';
  const kubelet = `${at} worker-1 kubelet[1000]: `;
  const sync = `${kubelet}E0801 10:00:00.123456    1000 configsync.go:89] kubelet config controller: failed to sync: failed to download config, see Kubelet log for details, error: x`;
  const file = path.join(dir, 'dropped.log');
  fs.writeFileSync(
    file,
    [
      ...quiet(r, 2000, at),
      // Overlong, with a marker: dropped (and counted as skipped); the line after it is an event.
      `${kubelet}W${'-'.repeat(MAX_LINE + 70_000)} fig co`,
      sync,
      ...quiet(r, 2000, at),
      `${kubelet}E0801 10:00:00.123456    1000 fsstore.go:120] kubelet config controller: failed to load config, see Kubelet log for details, error: failed to decode: Object 'Kind' is missing in '{`,
      ...quiet(r, 10, at),
      `${kubelet}  "maxPods": 1,`,
      `${kubelet}}'`,
      sync,
      ...quiet(r, 2000, at),
      '',
    ].join('\n'),
  );
  await sameInChunks(t, file, 5);
  const got = await readJournal({ file, utc: true, year: 2021 });
  t.same(got.events.map((e) => e.kind), ['sync-failed', 'load-failed', 'sync-failed'].map(String), 'every event');
  t.equal(got.skipped, 1, 'the overlong line, counted');
  t.match(got.events[1]?.message, /"maxPods": 1,\n}'$/, 'the continued message whole');
});

/** The same bytes through stdin in chunks of random sizes: the scanner's buffers fall elsewhere. */
async function sameInChunks(t: { same(found: unknown, wanted: unknown, message?: string): boolean }, file: string, seed: number): Promise<void> {
  const base: ReadJournalOptions = { utc: true, year: 2021, now: new Date('2021-12-31T00:00:00Z') };
  const whole = await readJournal({ ...base, file });
  const bytes = fs.readFileSync(file);
  const r = rng(seed);
  for (const biggest of [3000, 70_000, 300_000]) {
    const chunks: Buffer[] = [];
    for (let at = 0; at < bytes.length; ) {
      const n = 1 + Math.floor(r() * biggest);
      chunks.push(bytes.subarray(at, at + n));
      at += n;
    }
    const got = await readJournal({ ...base, file: '-', stdin: Readable.from(chunks) });
    t.same({ ...got, events: got.events.map((e) => ({ ...e, source: null })) }, { ...whole, events: whole.events.map((e) => ({ ...e, source: null })) }, `${path.basename(file)}: in chunks of up to ${biggest} bytes, the same`);
  }
}

t.test('where reads end does not matter: a line of exactly MAX_LINE bytes, a marker cut by a read inside a dropped line', async (t) => {
  const at = 'Aug 01 10:00:00';
  const q = (n: number) => `${at} worker-1 containerd[77]: level=info msg="quiet ${'x'.repeat(n)}"\n`;
  /** Quiet lines filling `text` up to exactly `to` bytes. */
  const fill = (text: string, to: number) => {
    while (to - text.length > 300) text += q(60);
    return text + q(to - text.length - q(0).length);
  };
  const sync = `${at} worker-1 kubelet[1000]: E0801 10:00:00.123456    1000 configsync.go:89] kubelet config controller: failed to sync: failed to download config, see Kubelet log for details, error: `;
  for (const offset of [0, 1, 100, READ_SIZE - 1, 3 * READ_SIZE, 3 * READ_SIZE + 17]) {
    // A kubelet line of exactly MAX_LINE bytes is an event, wherever the reads around it end.
    const exact = path.join(dir, `exact-${offset}.log`);
    fs.writeFileSync(exact, fill(fill('', 4 * READ_SIZE + offset) + sync + 'x'.repeat(MAX_LINE - sync.length) + '\n', 4 * READ_SIZE + offset + MAX_LINE + 1 + 3_000_000));
    const got = await readJournal({ file: exact, utc: true, year: 2021 });
    t.same([got.events.map((e) => e.kind), got.skipped], [['sync-failed'], 0], `a line of exactly MAX_LINE at ${offset}: an event`);
    await sameInChunks(t, exact, offset);
    // One byte longer: dropped, and counted (it holds a marker).
    const over = path.join(dir, `over-${offset}.log`);
    fs.writeFileSync(over, fill(fill('', 4 * READ_SIZE + offset) + sync + 'x'.repeat(MAX_LINE + 1 - sync.length) + '\n', 4 * READ_SIZE + offset + MAX_LINE + 2 + 3_000_000));
    const dropped = await readJournal({ file: over, utc: true, year: 2021 });
    t.same([dropped.events.length, dropped.skipped], [0, 1], `one byte longer at ${offset}: dropped and counted`);
    await sameInChunks(t, over, offset + 1);
  }
  // The only marker of a dropped line, cut by every read boundary in turn: still counted.
  for (let cut = 1; cut < 6; cut++) {
    const split = path.join(dir, `split-${cut}.log`);
    const head = `${at} worker-1 kubelet[1000]: W`;
    const before = fill('', 24 * READ_SIZE);
    const pad = 3 * READ_SIZE - cut - head.length;
    fs.writeFileSync(split, fill(before + head + '-'.repeat(pad) + 'fig co' + '-'.repeat(MAX_LINE) + '\n', 24 * READ_SIZE + 4 * MAX_LINE + 3_000_000));
    const got = await readJournal({ file: split, utc: true, year: 2021 });
    t.equal(got.skipped, 1, `a marker cut ${cut} bytes in at a read boundary: the dropped line is counted`);
    await sameInChunks(t, split, cut);
  }
});
