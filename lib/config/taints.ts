// Node taints as `registerWithTaints` holds them: pkg/util/taints.CheckTaintValidation,
// the label-syntax checks it uses (apimachinery util/validation), and Go's `%v` of a
// v1.Taint struct, which is what the kubelet prints ("{key value effect <nil>}").

export interface Taint {
  key?: string;
  value?: string;
  effect?: string;
  timeAdded?: string;
}

export const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'] as const;

const NAME_RE = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE_RE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const DNS1123_SUBDOMAIN_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** validation.IsQualifiedName: `[prefix/]name`, prefix a DNS subdomain, name ≤ 63. */
export function isQualifiedName(value: string): boolean {
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) name = parts[0]!;
  else if (parts.length === 2) {
    const prefix = parts[0]!;
    if (prefix.length === 0 || prefix.length > 253 || !DNS1123_SUBDOMAIN_RE.test(prefix)) return false;
    name = parts[1]!;
  } else return false;
  return name.length > 0 && name.length <= 63 && NAME_RE.test(name);
}

/** validation.IsValidLabelValue: empty, or ≤ 63 characters of label syntax. */
export function isValidLabelValue(value: string): boolean {
  return value.length <= 63 && LABEL_VALUE_RE.test(value);
}

/** utiltaints.CheckTaintValidation: the first part it refuses (key, value, effect), or null. */
export function invalidTaintPart(t: Taint): 'key' | 'value' | 'effect' | null {
  if (!isQualifiedName(t.key ?? '')) return 'key';
  if (t.value && !isValidLabelValue(t.value)) return 'value';
  if (t.effect && !(TAINT_EFFECTS as readonly string[]).includes(t.effect)) return 'effect';
  return null;
}

/** utiltaints.CheckTaintValidation: true when the taint passes. */
export function isValidTaint(t: Taint): boolean {
  return invalidTaintPart(t) === null;
}

/** Go's time.Time.String() of an RFC 3339 instant, printed in UTC (the node's zone is unknown). */
function goTimeString(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${p(d.getUTCFullYear(), 4)}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())} +0000 UTC`;
}

/** fmt `%v` of a v1.Taint value: `{Key Value Effect TimeAdded}`. */
export function formatTaint(t: Taint): string {
  const added = t.timeAdded === undefined ? '<nil>' : goTimeString(t.timeAdded);
  return `{${t.key ?? ''} ${t.value ?? ''} ${t.effect ?? ''} ${added}}`;
}
