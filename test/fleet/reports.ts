// Generated NodeReports for merge tests and the merge benchmark's cousin: plain literals in
// the v1 shape, varied by a few knobs.

export interface Knobs {
  name: string;
  host?: string;
  sha?: string;
  uid?: string;
  rv?: string;
  source?: 'assigned' | 'last-known-good' | 'local' | 'none' | 'unknown';
  fellBack?: boolean;
  willStart?: boolean | null;
  crashLoop?: boolean | null;
  running?: { uid: string; resourceVersion: string; sha256: string } | null;
  store?: 'ok' | 'absent' | 'unreadable';
  generatedAt?: string;
  migration?: Record<string, unknown> | null;
}

export const SHA_A = 'a'.repeat(64);
export const SHA_B = 'b'.repeat(64);

export function fakeReport(k: Knobs): Record<string, unknown> {
  const uid = k.uid ?? '946d785e-998a-11e7-a8dd-42010a800006';
  const rv = k.rv ?? '119980';
  const ref = { namespace: 'kube-system', name: 'node-config', uid, resourceVersion: rv, kubeletConfigKey: 'kubelet', apiPath: '/api/v1/namespaces/kube-system/configmaps/node-config' };
  const sha = k.sha ?? SHA_A;
  const source = k.source ?? 'assigned';
  const ok = (k.store ?? 'ok') === 'ok';
  const meta = { state: 'source', ref, sha256: sha, error: null };
  return {
    apiVersion: 'kubelet-ckpt/v1',
    kind: 'NodeReport',
    generatedAt: k.generatedAt ?? '2026-11-25T00:00:00.000Z',
    tool: { name: 'kubelet-ckpt', version: '0.1.0' },
    node: { name: k.name, nameFrom: 'flag', host: k.host ?? k.name },
    kubelet: { version: null, rules: '1.23', config: null },
    store: { path: ok ? '/var/lib/kubelet/dynamic-config/store' : null, state: k.store ?? 'ok', error: ok ? null : 'cannot read /var/lib/kubelet/dynamic-config/store: permission denied', checkpoints: ok ? 1 : null },
    assigned: ok ? meta : null,
    lastKnownGood: ok ? meta : null,
    nextBoot: ok
      ? { source, ref: source === 'local' || source === 'none' || source === 'unknown' ? null : ref, sha256: source === 'none' || source === 'unknown' ? null : sha, willStart: k.willStart === undefined ? true : k.willStart, fellBack: k.fellBack ?? false, statusError: k.fellBack ? 'failed to validate assigned config' : null, reason: 'made up' }
      : null,
    running: k.running ?? null,
    trial: null,
    findings: ok ? { scope: 'all', error: 0, warning: 0, info: 0, byCode: [] } : null,
    crashLoop: { checked: k.crashLoop !== undefined && k.crashLoop !== null, crashLoop: k.crashLoop ?? null, restarts: k.crashLoop ? 5 : null, detail: null },
    migration: k.migration ?? null,
  };
}
