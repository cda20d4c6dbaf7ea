// decodeKubeletConfig: bytes of a checkpointed payload → the v1beta1 object the kubelet
// would decode, or the kubelet's exact error text. Mirrors, in order:
// configfiles.Load (empty file) → the codec factory's recognizer (JSON when the text
// starts with `{`, else YAML → JSON) → SimpleMetaFactory.Interpret (kind/apiVersion,
// case-insensitively, with Go's messages) → scheme lookup → typed decode
// (codec.DecodeKubeletConfiguration wraps errors as "failed to decode: …").
// Unknown and duplicate fields are not errors: the kubelet retries leniently and only
// logs a warning, so they come back as `strict` issues.
// `apiVersion: kubelet.config.k8s.io/__internal` is a registered version too: the payload
// decodes into the internal type, whose fields carry no JSON tags (so every v1beta1 name is
// unknown) and which gets no v1beta1 defaults: the result is `internal: true`.

import { goQuote } from './gostrconv.js';
import { jsonKindName, type JNode } from './jnode.js';
import { hasJsonPrefix, parseGoJson, type DuplicateKey } from './json.js';
import { parseYamlDocument } from './yaml.js';
import { decodeTyped } from './typed-decode.js';
import { goJsonBytes, jsoniterError } from './jsoniter.js';
import { KUBELET_CONFIGURATION, KUBELET_CONFIG_GROUP, KUBELET_CONFIG_VERSION, KUBELET_SCHEME_NAME } from './schema.js';
import { atLeast, DEFAULT_VERSION, type KubeletVersion } from './version.js';

export type PayloadFormat = 'yaml' | 'json';

export interface StrictIssue {
  kind: 'unknown-field' | 'duplicate-field';
  /** Dotted JSON path ("authentication.webhook.foo", "registerWithTaints[0].x"). */
  path: string;
  /** 1-based line of the repeated key (duplicates only). */
  line?: number;
  message: string;
}

export type DecodeResult =
  | {
      ok: true;
      config: Record<string, unknown>;
      format: PayloadFormat;
      strict: StrictIssue[];
      /** Decoded as kubelet.config.k8s.io/__internal: no v1beta1 defaults apply. */
      internal?: boolean;
    }
  | { ok: false; error: string; format?: PayloadFormat };

export interface DecodeOptions {
  /** The kubelet release whose v1beta1 type decodes the payload (fields it lacks are unknown). */
  version?: KubeletVersion;
}

interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

const INTERNAL_VERSION = '__internal';

const FIND_KIND_TYPE = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

/** encoding/json's case-insensitive field match (incl. the Kelvin sign and long s), of one key against both fields. */
function foldField(key: string): 'apiVersion' | 'kind' | null {
  if (key === 'apiVersion' || key === 'kind') return key;
  // Folding keeps the length (the two signs are one code unit each; the one character
  // toLowerCase lengthens, U+0130, gains a combining dot): other lengths never match.
  if (key.length !== 4 && key.length !== 10) return null;
  const n = key.replace(/\u212a/g, 'k').replace(/\u017f/g, 's').toLowerCase();
  return n === 'apiversion' ? 'apiVersion' : n === 'kind' ? 'kind' : null;
}

/** schema.ParseGroupVersion. */
function parseGroupVersion(gv: string): { group: string; version: string } | { error: string } {
  if (gv === '' || gv === '/') return { group: '', version: '' };
  const parts = gv.split('/');
  if (parts.length === 1) return { group: '', version: gv };
  if (parts.length === 2) return { group: parts[0]!, version: parts[1]! };
  return { error: `unexpected GroupVersion string: ${gv}` };
}

/** SimpleMetaFactory.Interpret: find apiVersion and kind with the standard library decoder (meta files too). */
export function interpret(root: JNode): GroupVersionKind | { error: string } {
  const jsonError = (msg: string) => ({ error: `couldn't get version/kind; json parse error: ${msg}` });
  if (root.t === 'null') return { group: '', version: '', kind: '' };
  if (root.t !== 'obj') return jsonError(`json: cannot unmarshal ${jsonKindName(root)} into Go value of type ${FIND_KIND_TYPE}`);
  let apiVersion = '';
  let kind = '';
  let saved: string | null = null;
  for (const [key, value] of root.entries) {
    const field = foldField(key);
    if (!field || value.t === 'null') continue;
    if (value.t !== 'str') {
      saved ??= `json: cannot unmarshal ${jsonKindName(value)} into Go struct field .${field} of type string`;
      continue;
    }
    if (field === 'apiVersion') apiVersion = value.v;
    else kind = value.v;
  }
  if (saved) return jsonError(saved);
  const gv = parseGroupVersion(apiVersion);
  if ('error' in gv) return gv;
  // Not `{ ...gv, kind }`: a spread was most of this function, which runs for every payload.
  return { group: gv.group, version: gv.version, kind };
}

function groupVersionString(gvk: GroupVersionKind): string {
  return gvk.group ? `${gvk.group}/${gvk.version}` : gvk.version;
}

/** The scheme's answer for a kind: decode it, or the error runtime.Scheme.New gives. */
function schemeLookup(gvk: GroupVersionKind): 'kubelet' | 'internal' | 'node-config-source' | { error: string } {
  if (gvk.group === KUBELET_CONFIG_GROUP && gvk.version === INTERNAL_VERSION) {
    if (gvk.kind === 'KubeletConfiguration') return 'internal';
    if (gvk.kind === 'SerializedNodeConfigSource') return 'node-config-source';
  }
  if (gvk.group === KUBELET_CONFIG_GROUP && gvk.version === KUBELET_CONFIG_VERSION) {
    if (gvk.kind === 'KubeletConfiguration') return 'kubelet';
    if (gvk.kind === 'SerializedNodeConfigSource') return 'node-config-source';
  }
  if (gvk.version === INTERNAL_VERSION) {
    return { error: `no kind ${goQuote(gvk.kind)} is registered for the internal version of group ${goQuote(gvk.group)} in scheme ${goQuote(KUBELET_SCHEME_NAME)}` };
  }
  return { error: `no kind ${goQuote(gvk.kind)} is registered for version ${goQuote(groupVersionString(gvk))} in scheme ${goQuote(KUBELET_SCHEME_NAME)}` };
}

/**
 * A repeated key, in the words of the kubelet's strict pass: go-yaml's for YAML (and for
 * JSON before 1.23, which went through go-yaml too); 1.23 decodes JSON with sigs.k8s.io/json,
 * which names the field.
 */
function duplicateIssue(d: DuplicateKey, format: PayloadFormat, version: KubeletVersion): StrictIssue {
  // The key itself, dots and all (found by review: `memory.available` was said as "available").
  const message = format === 'json' && atLeast(version, '1.23') ? `duplicate field ${goQuote(d.path)}` : `line ${d.line}: key ${goQuote(d.key)} already set in map`;
  return { kind: 'duplicate-field', path: d.path, line: d.line, message };
}

function unknownIssue(path: string): StrictIssue {
  return { kind: 'unknown-field', path, message: `unknown field ${goQuote(path)}` };
}

/** Parse bytes into the JSON tree the decoder reads, with Go's wording for syntax errors. */
export function parseDocument(bytes: Uint8Array, format: PayloadFormat): { ok: true; root: JNode; duplicates: DuplicateKey[] } | { ok: false; error: string } {
  if (format === 'json') {
    const parsed = parseGoJson(bytes);
    if (!parsed.ok) return { ok: false, error: `couldn't get version/kind; json parse error: ${parsed.error}` };
    return { ok: true, root: parsed.value, duplicates: parsed.duplicates };
  }
  const parsed = parseYamlDocument(bytes);
  if (!parsed.ok) return parsed;
  return { ok: true, root: parsed.value, duplicates: parsed.duplicates };
}

/**
 * The internal KubeletConfiguration: only TypeMeta has JSON tags, so a v1beta1 payload's
 * fields are all unknown and the object stays at Go's zero values. (Members spelled as
 * the internal Go field names would be decoded by the kubelet; they are reported as
 * unknown here: no real payload is written that way.)
 */
function decodeInternal(root: JNode, duplicates: DuplicateKey[], format: PayloadFormat, version: KubeletVersion): DecodeResult {
  const config: Record<string, unknown> = {};
  const unknown: StrictIssue[] = [];
  if (root.t === 'obj') {
    for (const [key, value] of root.entries) {
      if ((key === 'apiVersion' || key === 'kind') && value.t === 'str') config[key] = value.v;
      else if (key !== 'apiVersion' && key !== 'kind' && !unknown.some((u) => u.path === key)) unknown.push(unknownIssue(key));
    }
  }
  const dups = [...duplicates].sort((a, b) => a.line - b.line).map((d) => duplicateIssue(d, format, version));
  return { ok: true, config, format, strict: [...dups, ...unknown], internal: true };
}

/**
 * 1.20–1.22 decode with json-iterator, which words the same failure its own way: replay it
 * over the bytes it reads (the payload for JSON, the converted JSON for YAML).
 */
function jsoniterWording(bytes: Uint8Array, root: JNode, format: PayloadFormat, version: KubeletVersion): string | null {
  return jsoniterError(format === 'json' ? bytes : goJsonBytes(root), KUBELET_CONFIGURATION, version);
}

/** Decode a checkpointed KubeletConfiguration payload as the kubelet's file loader does. */
export function decodeKubeletConfig(bytes: Uint8Array, filePath: string, opts: DecodeOptions = {}): DecodeResult {
  const version = opts.version ?? DEFAULT_VERSION;
  if (bytes.length === 0) return { ok: false, error: `kubelet config file ${goQuote(filePath)} was empty` };
  const format: PayloadFormat = hasJsonPrefix(bytes, version === '1.20' ? 2048 : Infinity) ? 'json' : 'yaml';
  const fail = (msg: string) => ({ ok: false as const, error: `failed to decode: ${msg}`, format });
  const doc = parseDocument(bytes, format);
  if (!doc.ok) return fail(doc.error);
  const gvk = interpret(doc.root);
  if ('error' in gvk) return fail(gvk.error);
  const original = () => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  if (gvk.kind === '') return fail(`Object 'Kind' is missing in '${original()}'`);
  if (gvk.version === '') return fail(`Object 'apiVersion' is missing in '${original()}'`);
  const target = schemeLookup(gvk);
  if (typeof target === 'object') return fail(target.error);
  if (target === 'node-config-source') {
    return { ok: false, error: `failed to cast object to KubeletConfiguration, unexpected type: ${gvk.group}/${gvk.version}, Kind=${gvk.kind}`, format };
  }
  if (target === 'internal') return decodeInternal(doc.root, doc.duplicates, format, version);
  const typed = decodeTyped(doc.root, KUBELET_CONFIGURATION, version);
  if (!typed.ok) return fail(atLeast(version, '1.23') ? typed.error : (jsoniterWording(bytes, doc.root, format, version) ?? typed.error));
  const duplicates = [...doc.duplicates].sort((a, b) => a.line - b.line);
  const strict = [...duplicates.map((d) => duplicateIssue(d, format, version)), ...typed.unknownFields.map(unknownIssue)];
  return { ok: true, config: typed.value, format, strict };
}
