// `fleet manifest ansible`: a playbook for when the API server is the thing that is down —
// copy the single-file bundle to each host, run `report`, fetch each report back for
// `report merge`. Every path is a variable, so an inventory can point each host elsewhere
// (host vars: kubelet_ckpt_root for a mounted disk, kubelet_ckpt_node_name).

import { jsYaml } from '../../config/js-yaml.js';
import { shellWord } from '../../integrity/next-steps.js';
import type { ManifestOptions } from './options.js';

export interface AnsibleOptions extends ManifestOptions {
  /** The bundle on the control machine (copy's src). */
  localBundle: string;
  /** Where fetched reports land on the control machine. */
  reportsDir: string;
}

const guide = (reportsDir: string) => [
  'kubelet-ckpt report on every host of an inventory, over SSH: works while the API server is down.',
  '  kubelet-ckpt fleet manifest ansible > kubelet-ckpt-report.yml',
  '  ansible-playbook -i inventory.ini kubelet-ckpt-report.yml',
  `  kubelet-ckpt report merge ${shellWord(reportsDir)}`,
  'Per-host variables: kubelet_ckpt_root (a node disk mounted elsewhere, default /),',
  'kubelet_ckpt_node_name (default: the kubelet\'s --hostname-override, else the host name),',
  'kubelet_ckpt_node (the node binary, default node), kubelet_ckpt_become (default true); and, per host',
  'or with -e: kubelet_ckpt_bundle, kubelet_ckpt_dest, kubelet_ckpt_tmp, kubelet_ckpt_reports;',
  'with -e only (the play picks its hosts before any inventory variable exists): kubelet_ckpt_hosts.',
];

/**
 * A Jinja expression for the string `s`, for Ansible. A quote or backslash never goes into a
 * string literal: Ansible doubles the backslashes inside literals before Jinja reads them (and
 * a backslash before the closing quote breaks that), so each is made by `'%c'|format(N)`
 * instead: `'it' ~ ('%c'|format(39)) ~ 's'`. In a literal `"`, `{{` and `{%` are plain text;
 * js-yaml quotes the whole value for YAML.
 */
export function jinjaString(s: string): string {
  const parts = s.split(/(['\\])/).filter((p, i) => p !== '' || (i === 0 && s === ''));
  const exprs = parts.map((p) => (p === "'" || p === '\\' ? `('%c'|format(${p.charCodeAt(0)}))` : `'${p}'`));
  return exprs.length === 1 ? exprs[0]! : `(${exprs.join(' ~ ')})`;
}

/** A variable with its default; inventory host vars win (play `vars:` would override them). */
const v = (name: string, dflt: string) => `${name} | default(${jinjaString(dflt)})`;

export function ansiblePlaybook(o: AnsibleOptions): string {
  const node = v('kubelet_ckpt_node', o.node ?? 'node');
  const dest = v('kubelet_ckpt_dest', o.bundle);
  const root = v('kubelet_ckpt_root', o.hostRoot);
  const argv = `{{ [${node}, ${dest}, '--root', ${root}, '-q', 'report'] + (['--node-name', kubelet_ckpt_node_name] if kubelet_ckpt_node_name is defined else []) }}`;
  const remoteReport = `{{ ${v('kubelet_ckpt_tmp', '/tmp')} }}/kubelet-ckpt-report-{{ inventory_hostname }}.json`;
  const play = {
    name: 'kubelet-ckpt report on every node',
    hosts: `{{ ${v('kubelet_ckpt_hosts', 'all')} }}`,
    gather_facts: false,
    become: '{{ kubelet_ckpt_become | default(true) | bool }}',
    tasks: [
      { name: 'copy the kubelet-ckpt bundle', 'ansible.builtin.copy': { src: `{{ ${v('kubelet_ckpt_bundle', o.localBundle)} }}`, dest: `{{ ${dest} }}`, mode: '0755' } },
      // command runs without a shell; report exits 0 whatever it finds (the report says it).
      { name: 'kubelet-ckpt report', 'ansible.builtin.command': { argv }, register: 'kubelet_ckpt_out', changed_when: false },
      { name: 'keep the report on the host', 'ansible.builtin.copy': { content: '{{ kubelet_ckpt_out.stdout }}\n', dest: remoteReport, mode: '0600' } },
      // dest/<inventory_hostname>/<remote path>: one directory per host, for `report merge DIR`.
      { name: 'fetch the report', 'ansible.builtin.fetch': { src: remoteReport, dest: `{{ ${v('kubelet_ckpt_reports', o.reportsDir)} }}` } },
    ],
  };
  const text = jsYaml().dump([play], { noRefs: true, lineWidth: -1, sortKeys: false });
  return `${guide(o.reportsDir).map((l) => `# ${l}`).join('\n')}\n---\n${text}`;
}
