// kubeadm nodes: `kubeadm upgrade node` rewrites /var/lib/kubelet/config.yaml from the
// cluster's kubelet-config ConfigMap (reference/migration.md §5), so a node-local export is
// lost at the next upgrade unless the ConfigMap holds the same settings. Given a copy of
// that ConfigMap, list the fields where the export differs from what kubeadm would write
// (both with v1beta1 defaults, compared by diff's engine).

import fs from 'node:fs';
import { jsYaml } from '../config/js-yaml.js';
import { EnvError, UsageError, fsReason } from '../errors.js';
import { applyDefaults } from '../config/defaults.js';
import { decodeKubeletConfig } from '../config/decode.js';
import type { KubeletVersion } from '../config/version.js';
import { KUBELET_COMPARE } from '../diff/decode.js';
import { compareValues, type Change } from '../diff/semantic.js';
import type { Value } from '../diff/value.js';
import type { ExportResult } from './export.js';

export interface KubeadmCheck {
  warning: string;
  /** --kubeadm-config, when given. */
  file: string | null;
  /** Fields where kubeadm's config differs from the export (from: kubeadm, to: export). */
  differences: Change[] | null;
}

/** The KubeletConfiguration inside a ConfigMap copy (data.kubelet), or the file itself. */
function kubeletText(text: string, file: string): string {
  let doc: unknown;
  try {
    doc = jsYaml().load(text);
  } catch {
    return text;
  }
  const d = doc as { kind?: string; data?: Record<string, unknown> } | null;
  if (d?.kind !== 'ConfigMap') return text;
  const v = d.data?.kubelet;
  if (typeof v !== 'string') throw new UsageError(`--kubeadm-config ${file}: the ConfigMap has no data.kubelet key`, 'give a copy of the kubelet-config ConfigMap (kubectl -n kube-system get cm kubelet-config -o yaml)', 'BAD_KUBEADM_CONFIG');
  return v;
}

export function kubeadmCheck(exp: ExportResult, file: string | null, configPath: string, version: KubeletVersion): KubeadmCheck {
  const warning = `this is a kubeadm node: \`kubeadm upgrade node\` rewrites ${configPath} from the kubelet-config ConfigMap, and the exported settings are lost unless the ConfigMap (or kubeadm-flags.env) carries them${file ? '' : '; give a copy of it with --kubeadm-config FILE to see the fields that differ'}`;
  if (!file) return { warning, file: null, differences: null };
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new EnvError(`cannot read --kubeadm-config ${file}: ${fsReason(err)}`, null, 'UNREADABLE_INPUT');
  }
  const d = decodeKubeletConfig(Buffer.from(kubeletText(text, file)), configPath, { version });
  if (!d.ok) throw new UsageError(`--kubeadm-config ${file}: not a KubeletConfiguration: ${d.error}`, null, 'BAD_KUBEADM_CONFIG');
  const theirs = applyDefaults(d.config, version) as unknown as Value;
  const ours = applyDefaults(exp.config, version) as unknown as Value;
  const differences = compareValues(theirs, ours, KUBELET_COMPARE).map(({ path, op, from, to }) => ({ path, op, from, to }));
  const n = differences.length;
  return {
    warning: n ? `${warning}; ${n} field${n > 1 ? 's' : ''} differ from the ConfigMap: ${differences.map((c) => c.path).join(', ')}` : `${warning}; the ConfigMap ${file} holds the same settings`,
    file,
    differences,
  };
}
