// Decoding of meta/assigned and meta/last-known-good the way the kubelet decodes them
// (codec.DecodeRemoteConfigSource: the universal decoder, non-strict): JSON when the text
// starts with `{`, else YAML read by the same go-yaml v2 / YAML 1.1 reader as payloads
// (so a plain `yes` is a boolean, `1_000` a number, `2001-12-14` a string, and NEL/LS/PS
// end a line), then apiVersion/kind, then the typed, case-sensitive decode of
// SerializedNodeConfigSource. Empty = local config. Error texts are the kubelet's, so
// `status` can quote what the kubelet would log.

import { interpret, parseDocument } from '../config/decode.js';
import { hasJsonPrefix } from '../config/json.js';
import { jsonKindName, type JNode } from '../config/jnode.js';
import { KUBELET_CONFIG_GROUP, KUBELET_SCHEME_NAME, SERIALIZED_NODE_CONFIG_SOURCE } from '../config/schema.js';
import { goJsonBytes, jsoniterError } from '../config/jsoniter.js';
import { atLeast, type KubeletVersion } from '../config/version.js';
import { goQuote } from '../config/gostrconv.js';
import type { ContentRead, MetaState } from './snapshot.js';
import { unsafeNameReason } from './safepath.js';
import type { ConfigMapSource } from './types.js';

const KIND = 'SerializedNodeConfigSource';
/** Kinds the kubelet's config scheme registers (v1beta1 and internal): they decode, then all but ours fail the cast. */
const SCHEME_KINDS = new Set([KIND, 'KubeletConfiguration', 'CredentialProviderConfig']);
const CAST_ERROR = 'failed to cast decoded remote config source to *k8s.io/kubernetes/pkg/kubelet/apis/kubeletconfig.SerializedNodeConfigSource';
const NO_SUBFIELD = 'invalid NodeConfigSource, exactly one subfield must be non-nil, but all were nil, NodeConfigSource was: &v1.NodeConfigSource{ConfigMap:(*v1.ConfigMapNodeConfigSource)(nil)}';
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

/** Decodes already made, per snapshot meta state (immutable): one status asks a dozen times. */
const decoded = new WeakMap<MetaState, MetaDecode>();
/** An error in an older release's words, where they differ (json-iterator's, 1.20–1.22). */
const reworded = new WeakMap<MetaState, Map<string, MetaDecode>>();

/**
 * Decode a meta file's state from the snapshot, with the error words of `version` (default
 * 1.23). Decoded once: only a decode error of an older release is decoded again, for its words.
 */
export function decodeMetaState(m: MetaState, version: KubeletVersion = '1.23'): MetaDecode {
  let d = decoded.get(m);
  if (d === undefined) decoded.set(m, (d = decodeMetaStateOnce(m, '1.23')));
  if (d.state !== 'error' || atLeast(version, '1.23')) return d;
  let byVersion = reworded.get(m);
  if (byVersion === undefined) reworded.set(m, (byVersion = new Map()));
  let r = byVersion.get(version);
  if (r === undefined) byVersion.set(version, (r = decodeMetaStateOnce(m, version)));
  return r;
}

function decodeMetaStateOnce(m: MetaState, version: KubeletVersion): MetaDecode {
  if (m.entry.kind === 'missing' || m.content === null) return { state: 'missing' };
  if (!m.content.ok) return { state: 'unreadable', error: m.content.error, code: m.content.code };
  // The kubelet would read it all and decode it; we did not, so what it decides is unknown.
  if (m.content.truncated) return { state: 'unreadable', code: 'unreadable', error: `is larger than ${m.content.bytes.length / 1024 / 1024} MiB (a meta file is a few hundred bytes)` };
  return decodeMeta(m.content.bytes, version);
}

/** Decode meta bytes, with the error words of `version` (default 1.23). Pure. */
export function decodeMeta(bytes: Buffer, version: KubeletVersion = '1.23'): MetaDecode {
  if (bytes.length === 0) return { state: 'empty' };
  const format = hasJsonPrefix(bytes) ? 'json' : 'yaml';
  const fail = (msg: string): MetaDecode => ({ state: 'error', error: `failed to decode, error: ${msg}` });
  const doc = parseDocument(bytes, format);
  if (!doc.ok) return fail(doc.error);
  const gvk = interpret(doc.root);
  if ('error' in gvk) return fail(gvk.error);
  const original = bytes.toString('utf8');
  if (!gvk.kind) return fail(`Object 'Kind' is missing in '${original}'`);
  if (!gvk.version) return fail(`Object 'apiVersion' is missing in '${original}'`);
  const registered = gvk.group === KUBELET_CONFIG_GROUP && (gvk.version === 'v1beta1' || gvk.version === '__internal') && SCHEME_KINDS.has(gvk.kind);
  if (!registered) {
    if (gvk.version === '__internal') return fail(`no kind ${goQuote(gvk.kind)} is registered for the internal version of group ${goQuote(gvk.group)} in scheme ${goQuote(KUBELET_SCHEME_NAME)}`);
    return fail(`no kind ${goQuote(gvk.kind)} is registered for version ${goQuote(gvk.group ? `${gvk.group}/${gvk.version}` : gvk.version)} in scheme ${goQuote(KUBELET_SCHEME_NAME)}`);
  }
  if (gvk.kind !== KIND) return { state: 'error', error: CAST_ERROR };
  // The internal type's Source field has no json tag: the case-sensitive decoder only fills it from `Source`.
  const typed = decodeSource(doc.root, gvk.version === '__internal' ? 'Source' : 'source');
  // 1.20–1.22 decode with json-iterator, which words its errors its own way (as for payloads,
  // config/jsoniter.ts; found by a next-boot review: every release had 1.23's words). The
  // internal version keeps encoding/json's.
  if ('error' in typed) return fail((!atLeast(version, '1.23') && gvk.version === 'v1beta1' ? jsoniterError(format === 'json' ? bytes : goJsonBytes(doc.root), SERIALIZED_NODE_CONFIG_SOURCE, version) : null) ?? typed.error);
  if (!typed.configMap) return { state: 'error', error: NO_SUBFIELD };
  return sourceState(typed.configMap, format);
}

/**
 * encoding/json into SerializedNodeConfigSource (sigs.k8s.io/json: case-sensitive, unknown
 * members ignored): the first type error is kept while decoding goes on; null leaves a
 * field alone, except a pointer (configMap), which it resets; a repeated object member
 * decodes into the same struct again.
 */
function decodeSource(root: JNode, sourceKey: string): { configMap: Record<Field, string> | null } | { error: string } {
  let saved: string | null = null;
  const typeError = (n: JNode, field: string, goType: string) => {
    saved ??= `json: cannot unmarshal ${jsonKindName(n)} into Go struct field ${field} of type ${goType}`;
  };
  let cm: Record<Field, string> | null = null;
  if (root.t !== 'obj') return { configMap: null };
  for (const [key, source] of root.entries) {
    if (key !== sourceKey || source.t === 'null') continue;
    if (source.t !== 'obj') { typeError(source, `SerializedNodeConfigSource.${sourceKey}`, 'v1.NodeConfigSource'); continue; }
    for (const [k, v] of source.entries) {
      if (k !== 'configMap') continue;
      if (v.t === 'null') { cm = null; continue; }
      if (v.t !== 'obj') { typeError(v, `NodeConfigSource.${sourceKey}.configMap`, 'v1.ConfigMapNodeConfigSource'); continue; }
      cm ??= { kubeletConfigKey: '', name: '', namespace: '', resourceVersion: '', uid: '' };
      for (const [f, x] of v.entries) {
        if (!(FIELDS as readonly string[]).includes(f) || x.t === 'null') continue;
        if (x.t === 'str') cm[f as Field] = x.v;
        // UID is a types.UID (k8s.io/api core/v1), the others plain strings.
        else typeError(x, `ConfigMapNodeConfigSource.${sourceKey}.configMap.${f}`, f === 'uid' ? 'types.UID' : 'string');
      }
    }
  }
  return saved !== null ? { error: saved } : { configMap: cm };
}

function sourceState(fields: Record<Field, string>, format: 'yaml' | 'json'): MetaDecode {
  const src = fields as unknown as ConfigMapSource;
  const incomplete = FIELDS.filter((f) => src[f] === '');
  const unsafe: { field: Field; reason: string }[] = [];
  for (const f of ['uid', 'resourceVersion', 'kubeletConfigKey'] as const) {
    const reason = src[f] === '' ? null : unsafeNameReason(src[f]);
    if (reason) unsafe.push({ field: f, reason });
  }
  return { state: 'source', source: src, format, incomplete, unsafe };
}
