#!/usr/bin/env node
// TUI benchmark: the bundled CLI's `tui` in a real terminal (tmux, 80x24) on a generated
// 10,000-checkpoint store. Prints the first screen (ms since the process started, against
// `node -e 0` measured in the same run) and the redraw time of each key press (handling plus
// drawing, in the process), while the background verify runs and after it has finished.
// Targets (DESIGN.md / issues 7 and 16): first screen <= 300 ms, a key press redraw <= 50 ms,
// on 10,000 checkpoints (the default; --smoke runs 1,000 once, for CI).
//   node test/bench/tui.mjs [--uids N] [--runs N] [--smoke] [--sea]
// --sea runs the single executable (dist/kubelet-ckpt) instead of node and the .cjs.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CLEAN_ENV_NOTE, cleanEnv, generateStore, median, percentile, programArgv } from './lib/store.mjs';

const arg = (name, dflt) => (process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : dflt);
const smoke = process.argv.includes('--smoke');
const uids = arg('--uids', smoke ? 100 : 1000);
const runs = arg('--runs', smoke ? 1 : 3);

if (spawnSync('tmux', ['-V']).status !== 0) {
  console.log('tui: tmux is not installed; skipped');
  process.exit(0);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const socket = `kckpt-bench-${process.pid}`;
function tmux(...a) {
  const r = spawnSync('tmux', ['-L', socket, '-f', '/dev/null', ...a], { encoding: 'utf8' });
  if (r.status !== 0 && a[0] !== 'kill-server') throw new Error(`tui bench: tmux ${a[0]} failed (${r.status}): ${r.stderr}`);
  return r;
}

function records(file) {
  try {
    return fs.readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
  } catch {
    return [];
  }
}

async function until(file, test, what, timeoutMs = 60_000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const rs = records(file);
    if (test(rs)) return rs;
    if (Date.now() > end) throw new Error(`tui bench: timed out waiting for ${what}; timings: ${JSON.stringify(rs)}; screen:\n${tmux('capture-pane', '-p', '-t', 'b').stdout}`);
    await sleep(10);
  }
}

/** Send keys one at a time, each after the previous one's redraw is recorded. */
async function press(file, keys) {
  for (const k of keys) {
    const before = records(file).filter((r) => r.event === 'key').length;
    tmux('send-keys', '-t', 'b', k);
    await until(file, (rs) => rs.filter((r) => r.event === 'key').length > before, `the redraw after ${k}`);
  }
}

// Moving, paging, every tab, the filter: what an operator does in the first minute.
const KEYS = ['j', 'j', 'j', 'k', 'PageDown', 'PageDown', 'PageUp', '2', '3', '5', '1', 't', 't', 'G', 'g', 'Tab', 'Tab', '/', '0', '0', '3', 'Enter', 'Escape', 'm', 'j', '2', '1'];

async function once(store) {
  const file = path.join(os.tmpdir(), `kckpt-tui-timings-${process.pid}.jsonl`);
  fs.rmSync(file, { force: true });
  const env = `KUBELET_CKPT_TUI_TIMINGS='${file}' NO_COLOR=1 TERM=xterm-256color`;
  const cmd = `env -u NODE_EXTRA_CA_CERTS -u NODE_OPTIONS ${env} ${programArgv().map((a) => `'${a}'`).join(' ')} --dir '${store}' tui --no-journal; sleep 600`;
  // A new server now and then exits as it starts ("server exited unexpectedly") on a busy
  // machine: one more try before giving up.
  try {
    tmux('new-session', '-d', '-s', 'b', '-x', '80', '-y', '24', cmd);
  } catch {
    tmux('kill-server');
    await sleep(200);
    tmux('new-session', '-d', '-s', 'b', '-x', '80', '-y', '24', cmd);
  }
  try {
    const first = (await until(file, (rs) => rs.some((r) => r.event === 'first-screen'), 'the first screen')).find((r) => r.event === 'first-screen').ms;
    await press(file, KEYS);
    const during = records(file).filter((r) => r.event === 'key').map((r) => r.ms);
    const verified = (await until(file, (rs) => rs.some((r) => r.event === 'verified'), 'the background verify', 300_000)).find((r) => r.event === 'verified');
    const n = during.length;
    await press(file, KEYS);
    const after = records(file).filter((r) => r.event === 'key').slice(n).map((r) => r.ms);
    tmux('send-keys', '-t', 'b', 'q');
    return { first, during, after, verifiedMs: verified.ms, checkpoints: verified.checkpoints };
  } finally {
    tmux('kill-server');
    fs.rmSync(file, { force: true });
  }
}

function nodeAnchor() {
  const ts = Array.from({ length: 5 }, () => {
    const t0 = performance.now();
    spawnSync(process.execPath, ['-e', '0'], { env: cleanEnv() });
    return performance.now() - t0;
  });
  return median(ts);
}

const store = generateStore(uids, 10, 'kckpt-tui-bench-');
try {
  const anchor = nodeAnchor();
  const rs = [];
  for (let i = 0; i < runs; i++) rs.push(await once(store));
  const firsts = rs.map((r) => r.first);
  const first = median(firsts);
  const during = rs.flatMap((r) => r.during);
  const after = rs.flatMap((r) => r.after);
  const f = (x) => x.toFixed(1);
  const n = uids * 10;
  console.log(`tui: ${n} checkpoints${n === 10000 ? '' : ' (the targets are for 10,000: run without --smoke/--uids)'}, ${runs} run(s), 80x24, NO_COLOR, ${CLEAN_ENV_NOTE}, ${process.argv.includes('--sea') ? 'single executable' : 'node + .cjs'}, load average ${os.loadavg()[0].toFixed(1)}`);
  console.log(`tui: first screen median ${f(first)} ms (range ${f(Math.min(...firsts))}-${f(Math.max(...firsts))}; target <= 300 ms ${first <= 300 ? 'ok' : 'OVER'}), node -e 0 ${f(anchor)} ms, ratio ${(first / anchor).toFixed(2)}x`);
  console.log(`tui: key redraw while verifying: median ${f(median(during))} ms, p95 ${f(percentile(during, 0.95))} ms, max ${f(Math.max(...during))} ms (target <= 50 ms; ${during.length} keys)`);
  console.log(`tui: key redraw after verify:    median ${f(median(after))} ms, p95 ${f(percentile(after, 0.95))} ms, max ${f(Math.max(...after))} ms (${after.length} keys)`);
  console.log(`tui: background verify of ${rs[0].checkpoints} checkpoints done ${f(median(rs.map((r) => r.verifiedMs)) / 1000)} s after start`);
  const p95 = percentile(during.concat(after), 0.95);
  console.log(`tui: key redraw p95 over all ${during.length + after.length} keys ${f(p95)} ms (target <= 50 ms ${p95 <= 50 ? 'ok' : 'OVER'})`);
  const ok = first <= 300 && p95 <= 50;
  console.log(`tui: ${ok ? 'within target' : 'OVER TARGET'}`);
} finally {
  fs.rmSync(store, { recursive: true, force: true });
}
