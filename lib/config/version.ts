// Kubelet releases whose config rules kubelet-ckpt models. Dynamic Kubelet Configuration
// existed from 1.11 to 1.23; the rule tables here are exact for 1.20–1.23 (the releases
// the reference material was read from). 1.11–1.19 map to the nearest modelled set, 1.20:
// their field names and most rules match, their message wording does not always.

import { UsageError } from '../errors.js';

export type KubeletVersion = '1.20' | '1.21' | '1.22' | '1.23';

export const SUPPORTED_VERSIONS: readonly KubeletVersion[] = ['1.20', '1.21', '1.22', '1.23'];
export const DEFAULT_VERSION: KubeletVersion = '1.23';

/** The minor number of a modelled release (20 for '1.20'). */
export function minorOf(v: KubeletVersion): number {
  return Number(v.slice(2));
}

/** True when `v` is `since` or a later release. */
export function atLeast(v: KubeletVersion, since: KubeletVersion): boolean {
  return minorOf(v) >= minorOf(since);
}

/** True when a thing introduced in `since` and gone after `until` exists in `v`. */
export function inRange(v: KubeletVersion, since?: KubeletVersion, until?: KubeletVersion): boolean {
  if (since && !atLeast(v, since)) return false;
  if (until && minorOf(v) > minorOf(until)) return false;
  return true;
}

export interface ResolvedVersion {
  version: KubeletVersion;
  /** False when the requested release is older than 1.20 and was mapped to 1.20. */
  exact: boolean;
  requested: string;
}

const VERSION_RE = /^v?(\d+)\.(\d+)(?:\.(\d+))?(?:[-+].*)?$/;

/** Parse `v1.22.3`, `1.22`, `Kubernetes v1.23.0` into a modelled release, or throw UsageError. */
export function resolveKubeletVersion(text: string): ResolvedVersion {
  const requested = text.trim().replace(/^Kubernetes\s+/, '');
  const m = VERSION_RE.exec(requested);
  if (!m) throw new UsageError(`not a kubelet version: ${JSON.stringify(text)}`, 'give X.Y, e.g. 1.23, or vX.Y.Z');
  const major = Number(m[1]);
  const minor = Number(m[2]);
  if (major !== 1 || minor < 11) {
    throw new UsageError(`kubelet ${requested} has no Dynamic Kubelet Configuration checkpoint store`, 'the store exists in kubelet 1.11 to 1.23');
  }
  if (minor > 23) {
    throw new UsageError(`kubelet ${requested} no longer supports Dynamic Kubelet Configuration (removed in 1.24)`, 'use --kubelet-version 1.23 to check a store left behind by an older kubelet');
  }
  if (minor < 20) return { version: '1.20', exact: false, requested };
  return { version: `1.${minor}` as KubeletVersion, exact: true, requested };
}

/** Like resolveKubeletVersion, returning only the modelled release. */
export function parseKubeletVersion(text: string): KubeletVersion {
  return resolveKubeletVersion(text).version;
}
