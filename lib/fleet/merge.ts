// `report merge`: many NodeReports into one fleet view — nodes grouped by the config they
// run (by content hash), next boots that differ from what runs now, nodes in trouble, and
// divergence (one UID/RV and key, different bytes on different nodes). Pure: documents in, view out.

import { EnvError } from '../errors.js';
import type { FoundDoc } from './sources.js';
import { WarningLog } from './warnings.js';
import { REPORT_API_VERSION, type NodeReport } from './types.js';
import { compareText } from '../text-order.js';

export type Trouble = 'will-not-start' | 'fell-back' | 'crash-loop' | 'unknown' | 'store-unreadable';

export interface FleetNode {
  /** The node name; `name@host` when another report names the same node from another host. */
  id: string;
  name: string;
  host: string;
  from: string;
}

export interface ConfigGroup {
  /** sha256 of the config, or `local:unknown`, `none`, `unknown`, `no-store` when there is no hash. */
  key: string;
  sha256: string | null;
  /** The sources that run it (a hash may come from several ConfigMaps or the local file). */
  configs: string[];
  nodes: string[];
}

export interface NextBootChange {
  node: string;
  running: string;
  nextBoot: string;
}

export interface TroubledNode {
  node: string;
  problems: Trouble[];
  reason: string;
}

/** A node whose kubelet would not start, or would silently change config, at 1.24. */
export interface NotReady {
  node: string;
  to: string;
  why: string;
}

export interface Divergence {
  uid: string;
  resourceVersion: string;
  /** The ConfigMap key the payload is: nodes reading different keys of one ConfigMap hold different bytes by design. */
  kubeletConfigKey: string;
  variants: { sha256: string; nodes: string[] }[];
}

export interface FleetReport {
  apiVersion: typeof REPORT_API_VERSION;
  kind: 'FleetReport';
  nodes: number;
  groups: ConfigGroup[];
  nextBootDiffers: NextBootChange[];
  trouble: TroubledNode[];
  /** Nodes not ready to leave Dynamic Kubelet Config (from each report's `migration`). */
  notReadyToMigrate: NotReady[];
  divergence: Divergence[];
  warnings: string[];
}

/** Fields every v1 report carries; an older or damaged report without them is reported. */
const REQUIRED = ['apiVersion', 'kind', 'generatedAt', 'node.name', 'node.host', 'store.state', 'assigned', 'lastKnownGood', 'nextBoot', 'findings', 'crashLoop'].map((f) => ({ f, path: f.split('.') }));

function get(o: unknown, path: readonly string[]): unknown {
  let v: unknown = o;
  for (const k of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[k];
  }
  return v;
}

/** A string field, or null. Only strings reach keys and messages: `String(x)` and `${x}` throw on an object whose own `toString` is not a function. */
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const obj = (v: unknown): Record<string, unknown> | null => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null);

/** The parts of a report merge reads, defensively: any field may be absent or of another type. */
interface Seen {
  label: string;
  file: string;
  name: string;
  host: string;
  generatedAt: string;
  r: Partial<NodeReport>;
}

function see(d: FoundDoc, log: WarningLog): Seen | null {
  const r = d.value as Partial<NodeReport>;
  const name = str(get(r, ['node', 'name']));
  if (!name) {
    log.add(d.file, `${d.label}: skipped: the report names no node (node.name)`);
    return null;
  }
  const missing = REQUIRED.filter((x) => get(r, x.path) === undefined).map((x) => x.f);
  if (missing.length) log.add(d.file, `${d.label}: report for ${name} lacks ${missing.join(', ')} (written by another version?); merged with what it has`);
  if (r.apiVersion !== undefined && r.apiVersion !== REPORT_API_VERSION) log.add(d.file, `${d.label}: report for ${name} is ${str(r.apiVersion) ?? 'of no known apiVersion'}; read as ${REPORT_API_VERSION} (fields it does not know are ignored)`);
  return { label: d.label, file: d.file, name, host: str(get(r, ['node', 'host'])) ?? '', generatedAt: str(r.generatedAt) ?? '', r };
}

/** One report per node: the same name from the same host twice keeps the newer; from different hosts both stay, as name@host. */
function dedupe(seen: Seen[], log: WarningLog): { node: FleetNode; r: Partial<NodeReport> }[] {
  const byKey = new Map<string, Seen>();
  for (const s of seen) {
    const k = JSON.stringify([s.name, s.host]);
    const prev = byKey.get(k);
    if (!prev) {
      byKey.set(k, s);
      continue;
    }
    const keep = stamp(s.generatedAt) > stamp(prev.generatedAt) ? s : prev;
    log.add(s.file, `${s.name}: reported twice from host ${JSON.stringify(s.host)} (${prev.label}, ${s.label}); kept the newer, ${keep.label}`);
    byKey.set(k, keep);
  }
  const hostsOf = new Map<string, { n: number; file: string }>();
  for (const s of byKey.values()) hostsOf.set(s.name, { n: (hostsOf.get(s.name)?.n ?? 0) + 1, file: s.file });
  for (const [name, { n, file }] of hostsOf) if (n > 1) log.add(file, `${name}: ${n} reports from different hosts name this node; kept apart as ${name}@HOST`);
  const used = new Set<string>();
  const out = [...byKey.values()].map((s) => {
    const wanted = hostsOf.get(s.name)!.n > 1 ? `${s.name}@${s.host}` : s.name;
    const id = uniqueId(wanted, used);
    if (id !== wanted) log.add(s.file, `${s.label}: another node is already known as ${wanted}; this one is ${id}`);
    return { node: { id, name: s.name, host: s.host, from: s.label }, r: s.r };
  });
  return out.sort((a, b) => (a.node.id < b.node.id ? -1 : a.node.id > b.node.id ? 1 : 0));
}

/** A report's time as a number (stamps from other writers carry offsets or other precisions); one that does not parse is the oldest. */
function stamp(generatedAt: string): number {
  const t = Date.parse(generatedAt);
  return Number.isNaN(t) ? -Infinity : t;
}

/** `id`, or `id#2`, `id#3` … when taken: a node named `a@b` and node `a` from host `b` stay two nodes. */
function uniqueId(id: string, used: Set<string>): string {
  let u = id;
  for (let n = 2; used.has(u); n++) u = `${id}#${n}`;
  used.add(u);
  return u;
}

const shortId = (uid: unknown, rv: unknown) => `${str(uid) ?? '?'}/${str(rv) ?? '?'}`;

/** What the node runs: the journal's word when there is one, else the next boot (what a kubelet left alone runs). */
function runs(r: Partial<NodeReport>): { key: string; sha256: string | null; label: string } {
  if (r.store && r.store.state === 'absent') return { key: 'no-store', sha256: null, label: 'no dynamic config store' };
  if (r.store && r.store.state === 'unreadable') return { key: 'unknown', sha256: null, label: 'store unreadable' };
  const run = obj(r.running);
  if (run) {
    const id = shortId(run.uid, run.resourceVersion);
    const sha = str(run.sha256);
    return { key: sha ?? `checkpoint:${id}`, sha256: sha, label: `checkpoint ${id} (journal)` };
  }
  const nb = obj(r.nextBoot);
  // Its own group: a node that could not say (its store unreadable) is not one whose next boot is unknown.
  if (!nb) return { key: 'not-reported', sha256: null, label: 'not reported' };
  const source = str(nb.source) ?? 'unknown';
  const ref = obj(nb.ref);
  const label = ref ? `${source} ${str(ref.namespace) ?? '?'}/${str(ref.name) ?? '?'} ${shortId(ref.uid, ref.resourceVersion)}` : source;
  const sha = str(nb.sha256);
  if (sha) return { key: sha, sha256: sha, label };
  return { key: source === 'local' ? 'local:unknown' : source, sha256: null, label };
}

function troubleOf(r: Partial<NodeReport>): { problems: Trouble[]; reason: string } {
  const p: Trouble[] = [];
  const nb = r.nextBoot;
  if (r.store?.state === 'unreadable') p.push('store-unreadable');
  if (nb && (nb.willStart === false || (typeof nb.exitsAfterBootstrap === 'string' && nb.exitsAfterBootstrap !== ''))) p.push('will-not-start');
  if (nb && nb.fellBack === true) p.push('fell-back');
  if (nb && nb.source === 'unknown') p.push('unknown');
  if (r.crashLoop && r.crashLoop.crashLoop === true) p.push('crash-loop');
  const reason = r.store?.state === 'unreadable' ? (r.store.error ?? 'store unreadable') : nb?.reason ?? '';
  return { problems: p, reason: typeof reason === 'string' ? reason : '' };
}

/** Why a node is not ready to leave Dynamic Kubelet Config, or null (ready, or not reported). */
function notReadyOf(r: Partial<NodeReport>): { to: string; why: string } | null {
  const m = obj(r.migration);
  if (!m || m.ready !== false) return null;
  const fields = (Array.isArray(m.revertedFields) ? m.revertedFields : []).map((f) => str(f) ?? '?');
  const error = str(m.error);
  const why = error ? `not judged: ${error}` : m.breaks ? `the kubelet exits: ${str(m.exitMessage) ?? 'at start-up'}` : fields.length ? `silently reverts ${fields.length} field${fields.length === 1 ? '' : 's'}: ${fields.slice(0, 5).join(', ')}${fields.length > 5 ? ', …' : ''}` : 'would not start once the flag is dropped';
  // A verdict on an assumed command line says so, or the fleet view reads it as fact.
  const assumed = Array.isArray(m.assumedFlags) && m.assumedFlags.length ? ` (command line not found; assumed ${m.assumedFlags.map((f) => str(f) ?? '?').join(' ')})` : '';
  return { to: str(m.to) ?? '1.24', why: why + assumed };
}

interface Claim {
  uid: string;
  resourceVersion: string;
  kubeletConfigKey: string;
  sha256: string;
}

/** Every (UID/RV/key → sha256) claim a report makes: its meta files, next boot and running config. */
function claims(r: Partial<NodeReport>): Claim[] {
  const out: Claim[] = [];
  const add = (ref: unknown, sha: unknown) => {
    const o = obj(ref);
    const [uid, resourceVersion, kubeletConfigKey, sha256] = [str(o?.uid), str(o?.resourceVersion), str(o?.kubeletConfigKey), str(sha)];
    if (uid && resourceVersion && kubeletConfigKey && sha256) out.push({ uid, resourceVersion, kubeletConfigKey, sha256 });
  };
  for (const m of [r.assigned, r.lastKnownGood, r.nextBoot]) add(obj(m)?.ref, obj(m)?.sha256);
  // The journal names no key: the running checkpoint's is the one this node's meta gives it.
  const run = obj(r.running);
  const same = out.find((c) => c.uid === run?.uid && c.resourceVersion === run?.resourceVersion);
  if (run && same) add({ ...same }, run.sha256);
  return out;
}

/** Claims of one UID/RV/key whose bytes differ between nodes. */
function divergenceOf(claimed: Map<string, { claim: Claim; nodes: Map<string, Set<string>> }>): Divergence[] {
  const out: Divergence[] = [];
  for (const { claim, nodes } of claimed.values()) {
    if (nodes.size < 2) continue;
    const variants = [...nodes].map(([sha256, s]) => ({ sha256, nodes: [...s].sort() })).sort((a, b) => b.nodes.length - a.nodes.length || compareText(a.sha256, b.sha256));
    out.push({ uid: claim.uid, resourceVersion: claim.resourceVersion, kubeletConfigKey: claim.kubeletConfigKey, variants });
  }
  const id = (d: Divergence) => `${d.uid}/${d.resourceVersion}/${d.kubeletConfigKey}`;
  return out.sort((a, b) => compareText(id(a), id(b)));
}

/** `log`: the gathering's warnings, to which the merge adds its own (one cap per file for both). */
export function mergeReports(docs: readonly FoundDoc[], log: WarningLog = new WarningLog()): FleetReport {
  const seen = docs.map((d) => see(d, log)).filter((s): s is Seen => s !== null);
  const nodes = dedupe(seen, log);
  const warnings = log.list();
  const groups = new Map<string, ConfigGroup>();
  const nextBootDiffers: NextBootChange[] = [];
  const trouble: TroubledNode[] = [];
  const notReadyToMigrate: NotReady[] = [];
  const claimed = new Map<string, { claim: Claim; nodes: Map<string, Set<string>> }>();
  for (const { node, r } of nodes) {
    const run = runs(r);
    let g = groups.get(run.key);
    if (!g) groups.set(run.key, (g = { key: run.key, sha256: run.sha256, configs: [], nodes: [] }));
    if (!g.configs.includes(run.label)) g.configs.push(run.label);
    g.nodes.push(node.id);
    if (r.running && r.nextBoot) {
      const nb = runs({ ...r, running: null });
      if (nb.key !== run.key) nextBootDiffers.push({ node: node.id, running: run.label, nextBoot: nb.label });
    }
    const t = troubleOf(r);
    if (t.problems.length) trouble.push({ node: node.id, ...t });
    const nr = notReadyOf(r);
    if (nr) notReadyToMigrate.push({ node: node.id, ...nr });
    for (const c of claims(r)) {
      const k = JSON.stringify([c.uid, c.resourceVersion, c.kubeletConfigKey]);
      let e = claimed.get(k);
      if (!e) claimed.set(k, (e = { claim: c, nodes: new Map() }));
      let s = e.nodes.get(c.sha256);
      if (!s) e.nodes.set(c.sha256, (s = new Set()));
      s.add(node.id);
    }
  }
  const divergence = divergenceOf(claimed);
  const sorted = [...groups.values()].sort((a, b) => b.nodes.length - a.nodes.length || compareText(a.key, b.key));
  for (const g of sorted) g.configs.sort();
  return { apiVersion: REPORT_API_VERSION, kind: 'FleetReport', nodes: nodes.length, groups: sorted, nextBootDiffers, trouble, notReadyToMigrate, divergence, warnings };
}

/** merge exits 1 when any node is in trouble. */
export const fleetInTrouble = (f: FleetReport): boolean => f.trouble.length > 0;

/**
 * Merging nothing is not a healthy fleet: a script checking "none in trouble" would pass on no
 * data. No usable report from any source (empty, damaged, not NodeReports) is exit 3.
 */
export function requireNodes(f: FleetReport, sources: readonly string[]): void {
  if (f.nodes > 0) return;
  const named = sources.map((x) => (x === '-' ? 'stdin' : x));
  const from = named.length > 3 ? `${named.slice(0, 3).join(', ')} and ${named.length - 3} more` : named.join(', ');
  const n = f.warnings.length;
  const hint = n ? `${n} warning${n === 1 ? '' : 's'} say${n === 1 ? 's' : ''} why; the first: ${f.warnings[0]}` : 'name NodeReport files (kubelet-ckpt report writes them), directories of them (*.json, *.ndjson, *.jsonl, *.log, *.txt), .tar.gz archives, or - for stdin';
  throw new EnvError(`no NodeReport was read from ${from}`, hint, 'NO_REPORTS');
}
