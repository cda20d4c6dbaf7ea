// `fleet manifest KIND`: the text of a ready-to-use configuration for the engine that runs
// kubelet-ckpt on many nodes.

import path from 'node:path';
import { UsageError } from '../../errors.js';
import { ansiblePlaybook } from './ansible.js';
import { daemonSetManifest, jobManifest, sonobuoyPlugin } from './kube.js';
import { npdConfig } from './npd.js';
import { GO_DURATION, type ManifestOptions } from './options.js';
import { DurationError, parseGoDuration } from '../../config/duration.js';

export const MANIFEST_KINDS = ['npd', 'job', 'daemonset', 'sonobuoy', 'ansible'] as const;
export type ManifestKind = (typeof MANIFEST_KINDS)[number];

/** Where the node's / is where the tool runs: the host itself for Ansible, a mount in a pod. */
export function defaultHostRoot(kind: ManifestKind): string {
  return kind === 'ansible' ? '/' : '/host';
}

export interface AllManifestOptions extends ManifestOptions {
  /** job: one Job per node name. */
  targetNodes: readonly string[];
  localBundle: string;
  reportsDir: string;
}

/** time.ParseDuration's value in nanoseconds; null where Go refuses it (past int64). */
function goDurationOrNull(v: string): bigint | null {
  try {
    return parseGoDuration(v);
  } catch (e) {
    if (e instanceof DurationError) return null;
    throw e;
  }
}

/** The options checked, with --host-root in the form the tool resolves --root to. */
function checkOptions(o: AllManifestOptions): AllManifestOptions {
  for (const [name, v] of [['--interval', o.interval], ['--timeout', o.timeout]] as const) {
    const ns = GO_DURATION.test(v) ? goDurationOrNull(v) : null;
    if (ns === null) throw new UsageError(`${name} ${JSON.stringify(v)} is not a Go duration`, 'write it as NPD does: 30s, 1m, 1m30s');
    // NPD refuses an interval of 0 or less; a timeout of 0 or less kills every run of every rule.
    if (ns <= 0n) throw new UsageError(`${name} ${JSON.stringify(v)} must be more than 0`, 'write it as NPD does: 30s, 1m, 1m30s', 'INVALID_VALUE');
  }
  if (!o.bundle.startsWith('/')) throw new UsageError(`--bundle ${JSON.stringify(o.bundle)} must be an absolute path`, 'the engines resolve relative paths against their own working directory');
  if (!o.hostRoot.startsWith('/')) throw new UsageError(`--host-root ${JSON.stringify(o.hostRoot)} must be an absolute path`);
  // As the tool resolves --root: the pods' journalctl takes the node's paths off what it is
  // given by that form (found by review: /host/ kept /host/var/log/journal, which the node lacks).
  return { ...o, hostRoot: path.posix.resolve(o.hostRoot) };
}

export function manifest(kind: ManifestKind, given: AllManifestOptions): string {
  const o = checkOptions(given);
  switch (kind) {
    case 'npd':
      // NPD checks each rule's path with os.Stat, from its own working directory, and looks up
      // nothing on PATH: a relative one stops NPD at start (found by review).
      if (o.node && !o.node.startsWith('/')) throw new UsageError(`--node ${JSON.stringify(o.node)} must be an absolute path for npd`, 'node-problem-detector runs a rule\'s path as given, not looked up on PATH: give /usr/bin/node, for one');
      return `${JSON.stringify(npdConfig(o), null, 2)}\n`;
    case 'job':
      return jobManifest(o, o.targetNodes);
    case 'daemonset':
      return daemonSetManifest(o);
    case 'sonobuoy':
      return sonobuoyPlugin(o);
    case 'ansible':
      return ansiblePlaybook(o);
  }
}
