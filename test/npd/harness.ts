// node-problem-detector's custom plugin monitor, re-stated from its contract (see
// ../shared/reference/fleet-engines.md §1; NPD is not packaged in Debian): load a config
// (defaults, Go durations), validate it with NPD's start-up rules and messages, run a rule
// as NPD does, and fold results into the node condition as NPD's generateStatus does.
// Test-only, written from the documented behaviour; no NPD code.

import { spawn } from 'node:child_process';
import fs from 'node:fs';

export type Status = 'OK' | 'NonOK' | 'Unknown';

export interface Rule {
  type: 'permanent' | 'temporary';
  condition?: string;
  reason: string;
  path: string;
  args?: string[];
  timeout?: string;
  invoke_interval?: string;
}

export interface Config {
  plugin: string;
  pluginConfig?: { invoke_interval?: string; timeout?: string; max_output_length?: number; concurrency?: number; enable_message_change_based_condition_update?: boolean; skip_initial_status?: boolean };
  source: string;
  conditions: { type: string; reason: string; message: string }[];
  rules: Rule[];
  metricsReporting?: boolean;
}

/** A config after NPD's ApplyConfiguration: defaults filled, durations in ms. */
export interface Loaded {
  cfg: Config;
  timeoutMs: number;
  intervalMs: number;
  maxOutput: number;
  messageUpdates: boolean;
  ruleTimeoutMs: (r: Rule) => number | null;
}

const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, 'μs': 1e-3, ms: 1, s: 1000, m: 60000, h: 3600000 };

/** Go's time.ParseDuration, to milliseconds; throws on what Go rejects. */
export function parseGoDuration(s: string): number {
  const m = /^([-+]?)(.*)$/s.exec(s)!;
  const body = m[2]!;
  if (body === '0') return 0;
  if (body === '') throw new Error(`time: invalid duration ${JSON.stringify(s)}`);
  let total = 0;
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/gy;
  let at = 0;
  while (at < body.length) {
    re.lastIndex = at;
    const p = re.exec(body);
    if (!p) throw new Error(`time: ${/\d$/.test(body) ? 'missing unit in' : 'invalid'} duration ${JSON.stringify(s)}`);
    total += Number(p[1]) * UNIT_MS[p[2]!]!;
    at = re.lastIndex;
  }
  return m[1] === '-' ? -total : total;
}

/** ApplyConfiguration then Validate; throws with NPD's messages. */
export function loadAndValidate(json: string): Loaded {
  const cfg = JSON.parse(json) as Config;
  const pc = cfg.pluginConfig ?? {};
  const parse = (v: string, what: string) => {
    try {
      return parseGoDuration(v);
    } catch (err) {
      throw new Error(`error in parsing ${what} ${JSON.stringify(v)}: ${(err as Error).message}`);
    }
  };
  const timeoutMs = parse(pc.timeout ?? '5s', 'global timeout');
  const intervalMs = parse(pc.invoke_interval ?? '30s', 'invoke interval');
  const ruleTimeouts = new Map<Rule, number>();
  for (const r of cfg.rules ?? []) {
    if (r.timeout !== undefined && r.timeout !== null) ruleTimeouts.set(r, parse(r.timeout, 'rule timeout'));
    if (r.invoke_interval !== undefined) parse(r.invoke_interval, 'rule invoke interval');
  }
  if (cfg.plugin !== 'custom') throw new Error(`NPD does not support ${JSON.stringify(cfg.plugin)} plugin for now. Only support "custom"`);
  if (intervalMs <= 0) throw new Error(`global invoke interval must be greater than zero: ${pc.invoke_interval}`);
  for (const r of cfg.rules ?? []) {
    if (r.invoke_interval !== undefined && parseGoDuration(r.invoke_interval) <= 0) throw new Error(`rule invoke interval must be greater than zero. Rule: ${JSON.stringify(r)}`);
    const rt = ruleTimeouts.get(r);
    if (rt !== undefined && rt > timeoutMs) throw new Error(`plugin timeout is greater than global timeout. Rule: ${JSON.stringify(r)}. Global timeout: ${pc.timeout ?? '5s'}`);
  }
  for (const r of cfg.rules ?? []) if (!fs.existsSync(r.path)) throw new Error(`rule path ${JSON.stringify(r.path)} does not exist. Rule: ${JSON.stringify(r)}`);
  for (const r of cfg.rules ?? []) {
    if (r.type !== 'permanent') continue;
    if (!(cfg.conditions ?? []).some((c) => c.type === r.condition)) throw new Error(`permanent problem ${r.condition} does not have preset default condition`);
  }
  return { cfg, timeoutMs, intervalMs, maxOutput: pc.max_output_length ?? 80, messageUpdates: pc.enable_message_change_based_condition_update ?? false, ruleTimeoutMs: (r) => ruleTimeouts.get(r) ?? null };
}

const PIPE_CAP = 4 * 1024;

/** Collect at most PIPE_CAP bytes of a pipe, draining the rest, until it closes. */
function readCapped(stream: NodeJS.ReadableStream): Promise<Buffer> {
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    let n = 0;
    stream.on('data', (b: Buffer) => {
      if (n < PIPE_CAP) parts.push(b.subarray(0, PIPE_CAP - n));
      n += b.length;
    });
    stream.on('close', () => resolve(Buffer.concat(parts).subarray(0, PIPE_CAP)));
    stream.on('error', () => resolve(Buffer.concat(parts)));
  });
}

/** Go's strings.TrimSpace over the bytes (ASCII white space and Unicode spaces at the ends). */
function trimSpace(s: string): string {
  return s.replace(/^[\s\u0085]+|[\s\u0085]+$/g, '');
}

export interface RunResult {
  status: Status;
  message: string;
  exitCode: number | null;
  timedOut: boolean;
  stderr: string;
  ms: number;
}

/** Run one rule as NPD's plugin.run does: exec without a shell in a new process group. */
export async function runRule(l: Loaded, r: Rule, env: NodeJS.ProcessEnv = process.env): Promise<RunResult> {
  const rt = l.ruleTimeoutMs(r);
  const timeout = rt !== null && rt < l.timeoutMs ? rt : l.timeoutMs;
  const t0 = Date.now();
  let child;
  try {
    child = spawn(r.path, r.args ?? [], { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env });
  } catch {
    return { status: 'Unknown', message: 'Error in starting plugin. Please check the error log', exitCode: null, timedOut: false, stderr: '', ms: 0 };
  }
  const started = await new Promise<boolean>((resolve) => {
    child.once('spawn', () => resolve(true));
    child.once('error', () => resolve(false));
  });
  if (!started) return { status: 'Unknown', message: 'Error in starting plugin. Please check the error log', exitCode: null, timedOut: false, stderr: '', ms: Date.now() - t0 };
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }, timeout);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const [out, err] = await Promise.all([readCapped(child.stdout!), readCapped(child.stderr!)]);
  const { code, signal } = await exited;
  clearTimeout(timer);
  let message = trimSpace(out.toString('utf8'));
  if (timedOut) message = `Timeout when running plugin ${JSON.stringify(r.path)}: state - ${signal ? `signal: ${signal === 'SIGKILL' ? 'killed' : signal}` : `exit status ${code}`}. output - ${JSON.stringify(message)}`;
  const bytes = Buffer.from(message, 'utf8');
  if (bytes.length > l.maxOutput) message = bytes.subarray(0, l.maxOutput).toString('utf8');
  // A signal-killed process has exit status -1 in Go's WaitStatus.ExitStatus().
  const exit = code ?? -1;
  const status: Status = exit === 0 ? 'OK' : exit === 1 ? 'NonOK' : 'Unknown';
  return { status, message, exitCode: code, timedOut, stderr: err.toString('utf8'), ms: Date.now() - t0 };
}

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
}

/** The conditions at start (False with the default reason/message). */
export function initialConditions(l: Loaded): Condition[] {
  return l.cfg.conditions.map((c) => ({ type: c.type, status: 'False', reason: c.reason, message: c.message }));
}

const toCondition = (s: Status): Condition['status'] => (s === 'OK' ? 'False' : s === 'NonOK' ? 'True' : 'Unknown');

/** generateStatus for one result: the new conditions, and whether the condition changed (an event). */
export function applyResult(l: Loaded, conds: Condition[], r: Rule, res: RunResult): { conditions: Condition[]; changed: boolean; event: { reason: string; message: string } | null } {
  if (r.type === 'temporary') return { conditions: conds, changed: false, event: res.status !== 'OK' ? { reason: r.reason, message: res.message } : null };
  const def = l.cfg.conditions.find((c) => c.type === r.condition)!;
  const out = conds.map((c) => ({ ...c }));
  const c = out.find((x) => x.type === r.condition);
  if (!c) return { conditions: out, changed: false, event: null };
  const status = toCondition(res.status);
  let next: Pick<Condition, 'reason' | 'message'> | null = null;
  if (c.status === 'True' && status !== 'True') next = { reason: def.reason, message: status === 'False' ? def.message : res.message };
  else if (c.status !== 'True' && status === 'True') next = { reason: r.reason, message: res.message };
  else if (c.status !== status) next = { reason: def.reason, message: status === 'False' ? def.message : res.message };
  else if (c.status === 'True' && status === 'True' && (c.reason !== r.reason || (l.messageUpdates && c.message !== res.message))) next = { reason: r.reason, message: res.message };
  if (!next) return { conditions: out, changed: false, event: null };
  Object.assign(c, { status, ...next });
  return { conditions: out, changed: true, event: null };
}
