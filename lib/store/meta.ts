// Decoding of meta/assigned and meta/last-known-good the way the kubelet decodes them
// (codec.DecodeRemoteConfigSource): YAML or JSON, non-strict, empty = local config.
// Error texts are the kubelet's, so `status` can quote what the kubelet would log.

import * as yaml from 'js-yaml';
import type { ContentRead, MetaState } from './snapshot.js';
import { unsafeNameReason } from './safepath.js';
import type { ConfigMapSource } from './types.js';

const GROUP_VERSION = 'kubelet.config.k8s.io/v1beta1';
const KIND = 'SerializedNodeConfigSource';
const SCHEME = 'k8s.io/kubernetes/pkg/kubelet/apis/config/scheme/scheme.go:32';
/** Kinds registered in the kubelet's config scheme besides ours (decode, then fail the cast). */
const OTHER_KINDS = new Set(['KubeletConfiguration', 'CredentialProviderConfig']);
const FIELDS = ['kubeletConfigKey', 'name', 'namespace', 'resourceVersion', 'uid'] as const;
type Field = (typeof FIELDS)[number];

export type MetaDecode =
  /** No file: the kubelet would create it empty (= local). */
  | { state: 'missing' }
  /** Zero bytes: use the local config. */
  | { state: 'empty' }
  | {
      state: 'source';
      source: ConfigMapSource;
      format: 'yaml' | 'json';
      /** Fields that are empty (the kubelet accepts them, then fails to find a checkpoint). */
      incomplete: Field[];
      /** Fields that must never be joined into a path. */
      unsafe: { field: Field; reason: string }[];
    }
  /** Not decodable: the kubelet's Bootstrap fails with `error`. */
  | { state: 'error'; error: string }
  /** We could not (or would not) read it: a symlink out of the store, permissions, a FIFO. */
  | { state: 'unreadable'; error: string; code: Extract<ContentRead, { ok: false }>['code'] };

/** Decode a meta file's state from the snapshot. */
export function decodeMetaState(m: MetaState): MetaDecode {
  if (m.entry.kind === 'missing' || m.content === null) return { state: 'missing' };
  if (!m.content.ok) return { state: 'unreadable', error: m.content.error, code: m.content.code };
  if (m.content.truncated) return { state: 'error', error: `failed to decode, error: meta file is larger than ${m.content.bytes.length} bytes` };
  return decodeMeta(m.content.bytes);
}

/** Decode meta bytes. Pure. */
export function decodeMeta(bytes: Buffer): MetaDecode {
  if (bytes.length === 0) return { state: 'empty' };
  const text = bytes.toString('utf8');
  const doc = parseDocument(text);
  if ('error' in doc) return { state: 'error', error: `failed to decode, error: ${doc.error}` };
  // An empty document reads as null, which decodes as an object without a kind.
  const obj = doc.value ?? {};
  if (typeof obj !== 'object' || Array.isArray(obj)) {
    return { state: 'error', error: `failed to decode, error: couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonType(obj)} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }` };
  }
  const o = obj as Record<string, unknown>;
  const kind = typeof o.kind === 'string' ? o.kind : '';
  const apiVersion = typeof o.apiVersion === 'string' ? o.apiVersion : '';
  if (!kind) return { state: 'error', error: `failed to decode, error: Object 'Kind' is missing in '${text}'` };
  if (!apiVersion) return { state: 'error', error: `failed to decode, error: Object 'apiVersion' is missing in '${text}'` };
  if (apiVersion !== GROUP_VERSION || (kind !== KIND && !OTHER_KINDS.has(kind))) {
    return { state: 'error', error: `failed to decode, error: no kind "${kind}" is registered for version "${apiVersion}" in scheme "${SCHEME}"` };
  }
  if (kind !== KIND) {
    return { state: 'error', error: 'failed to cast decoded remote config source to *k8s.io/kubernetes/pkg/kubelet/apis/config.SerializedNodeConfigSource' };
  }
  return decodeSource(o.source, doc.format);
}

function decodeSource(source: unknown, format: 'yaml' | 'json'): MetaDecode {
  const noSubfield = 'invalid NodeConfigSource, exactly one subfield must be non-nil, but all were nil, NodeConfigSource was: &v1.NodeConfigSource{ConfigMap:(*v1.ConfigMapNodeConfigSource)(nil)}';
  if (source === null || source === undefined) return { state: 'error', error: noSubfield };
  if (typeof source !== 'object' || Array.isArray(source)) {
    return { state: 'error', error: typeError(source, 'SerializedNodeConfigSource.source', 'v1.NodeConfigSource') };
  }
  const cm = (source as Record<string, unknown>).configMap;
  if (cm === null || cm === undefined) return { state: 'error', error: noSubfield };
  if (typeof cm !== 'object' || Array.isArray(cm)) {
    return { state: 'error', error: typeError(cm, 'NodeConfigSource.source.configMap', 'v1.ConfigMapNodeConfigSource') };
  }
  const c = cm as Record<string, unknown>;
  const out: Record<string, string> = {};
  for (const f of FIELDS) {
    const v = c[f];
    if (v === null || v === undefined) out[f] = '';
    else if (typeof v === 'string') out[f] = v;
    else return { state: 'error', error: typeError(v, `ConfigMapNodeConfigSource.source.configMap.${f}`, 'string') };
  }
  const src = out as unknown as ConfigMapSource;
  const incomplete = FIELDS.filter((f) => src[f] === '');
  const unsafe: { field: Field; reason: string }[] = [];
  for (const f of ['uid', 'resourceVersion', 'kubeletConfigKey'] as const) {
    const reason = src[f] === '' ? null : unsafeNameReason(src[f]);
    if (reason) unsafe.push({ field: f, reason });
  }
  return { state: 'source', source: src, format, incomplete, unsafe };
}

function typeError(v: unknown, field: string, goType: string): string {
  return `failed to decode, error: json: cannot unmarshal ${jsonType(v)} into Go struct field ${field} of type ${goType}`;
}

function jsonType(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string') return 'string';
  return 'object';
}

type Parsed = { value: unknown; format: 'yaml' | 'json' } | { error: string };

/** YAML (a superset of JSON); the first document only, duplicate keys keep the last value. */
function parseDocument(text: string): Parsed {
  const format = /^\s*[{[]/.test(text) ? 'json' : 'yaml';
  try {
    const docs: unknown[] = [];
    yaml.loadAll(text, (d) => docs.push(d), { json: true });
    return { value: docs.length ? docs[0] : null, format };
  } catch (err) {
    const e = err as yaml.YAMLException;
    // go-yaml reports an error at the end of input on the last line, js-yaml one past it.
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    const line = e.mark ? `line ${Math.max(1, Math.min(e.mark.line + 1, lines))}: ` : '';
    return { error: `yaml: ${line}${e.reason ?? e.message}` };
  }
}
