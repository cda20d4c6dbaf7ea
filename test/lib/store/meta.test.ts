import t from 'tap';
import { decodeMeta } from '../../../lib/store/meta.js';
import { metaYaml } from '../../helpers.js';

const UID = 'aaaaaaaa-0000-4000-8000-00000000000a';

t.test('decodes the kubelet encoding, YAML and JSON', async (t) => {
  const d = decodeMeta(Buffer.from(metaYaml({ uid: UID, rv: '10' })));
  t.same(d, { state: 'source', format: 'yaml', incomplete: [], unsafe: [], source: { kubeletConfigKey: 'kubelet', name: 'cfg', namespace: 'kube-system', resourceVersion: '10', uid: UID } });
  const j = decodeMeta(Buffer.from(JSON.stringify({ apiVersion: 'kubelet.config.k8s.io/v1beta1', kind: 'SerializedNodeConfigSource', source: { configMap: { kubeletConfigKey: 'kubelet', name: 'cfg', namespace: 'ns', resourceVersion: '11', uid: UID } } })));
  t.equal(j.state, 'source');
  t.equal(j.state === 'source' && j.format, 'json');
});

t.test('empty is local; whitespace is not empty', async (t) => {
  t.same(decodeMeta(Buffer.alloc(0)), { state: 'empty' });
  t.match(decodeMeta(Buffer.from('\n')), { state: 'error', error: /Object 'Kind' is missing/ });
});

t.test('kubelet error texts', async (t) => {
  const table: [string, RegExp | string][] = [
    ['garbage: [', 'failed to decode, error: yaml: line 1: did not find expected node content'],
    [metaYaml({ uid: UID, rv: '1' }).replace('kind: SerializedNodeConfigSource', 'kind: ConfigMap'), 'failed to decode, error: no kind "ConfigMap" is registered for version "kubelet.config.k8s.io/v1beta1" in scheme "k8s.io/kubernetes/pkg/kubelet/apis/config/scheme/scheme.go:32"'],
    ['apiVersion: kubelet.config.k8s.io/v1beta1\nkind: SerializedNodeConfigSource\nsource: {}\n', 'invalid NodeConfigSource, exactly one subfield must be non-nil, but all were nil, NodeConfigSource was: &v1.NodeConfigSource{ConfigMap:(*v1.ConfigMapNodeConfigSource)(nil)}'],
    ['apiVersion: kubelet.config.k8s.io/v1beta1\nsource: {}\n', /^failed to decode, error: Object 'Kind' is missing in 'apiVersion/],
    ['kind: SerializedNodeConfigSource\n', /^failed to decode, error: Object 'apiVersion' is missing in/],
    [metaYaml({ uid: UID, rv: 'x' }).replace('resourceVersion: x', 'resourceVersion: 12'), 'failed to decode, error: json: cannot unmarshal number into Go struct field ConfigMapNodeConfigSource.source.configMap.resourceVersion of type string'],
    [metaYaml({ uid: UID, rv: '1' }).replace('kind: SerializedNodeConfigSource', 'kind: KubeletConfiguration'), 'failed to cast decoded remote config source to *k8s.io/kubernetes/pkg/kubelet/apis/kubeletconfig.SerializedNodeConfigSource'],
    ['"just a string"', /couldn't get version\/kind/],
  ];
  for (const [text, want] of table) {
    const d = decodeMeta(Buffer.from(text));
    t.equal(d.state, 'error', text.slice(0, 40));
    if (d.state === 'error') typeof want === 'string' ? t.equal(d.error, want) : t.match(d.error, want);
  }
});

t.test('binary and truncated meta never throw', async (t) => {
  for (const b of [Buffer.from([0, 1, 2, 255, 254]), Buffer.from(metaYaml({ uid: UID, rv: '1' }).slice(0, 60)), Buffer.from('{"apiVersion": "kubelet.config.k8s.io/v1beta1", "kind"')]) {
    const d = decodeMeta(b);
    t.equal(d.state, 'error');
  }
});

t.test('incomplete and unsafe fields are reported, never joined', async (t) => {
  const d = decodeMeta(Buffer.from(metaYaml({ uid: '..', rv: '1/2', key: '' }).replace("kubeletConfigKey: \n", 'kubeletConfigKey: ""\n')));
  t.equal(d.state, 'source');
  if (d.state !== 'source') return;
  t.same(d.incomplete, ['kubeletConfigKey']);
  t.same(d.unsafe.map((u) => u.field), ['uid', 'resourceVersion']);
});

t.test('duplicate keys keep the last value (non-strict decode)', async (t) => {
  const d = decodeMeta(Buffer.from(metaYaml({ uid: UID, rv: '1' }).replace('    uid:', '    uid: first\n    uid:')));
  t.equal(d.state === 'source' && d.source.uid, UID);
});

// Every YAML 1.1 plain-scalar form go-yaml v2 resolves (resolve.go), in every field. A
// string field takes only a string: bools and numbers stop the decode (the kubelet exits),
// null leaves the field empty, timestamps and base-60 forms stay strings.
t.test('YAML 1.1 scalars in every meta field, as go-yaml v2 resolves them', async (t) => {
  const bools = ['y', 'Y', 'yes', 'Yes', 'YES', 'n', 'N', 'no', 'No', 'NO', 'true', 'True', 'TRUE', 'false', 'False', 'FALSE', 'on', 'On', 'ON', 'off', 'Off', 'OFF'];
  // go-yaml v2 drops every `_` before ParseInt (`1_` is 1) and tries YAML-style floats
  // after a failed base-0 ParseInt (`08` is the float 8).
  const numbers = ['0', '12', '-3', '+7', '1_000', '1_', '0x1F', '0o17', '017', '08', '0b101', '1e3', '.5', '1.5', '-2.5e-3', '9223372036854775808'];
  const nulls = ['~', 'null', 'Null', 'NULL'];
  const strings = ['2001-12-14', '2001-12-14t21:59:43.10-05:00', '2001-12-14 21:59:43.10 -5', '12:30', '1:30:00', 'yess', 'Yes!', 'nO', 'oN', '0x', '1e', '.', '-x', 'NaN', 'inf', '=', '<<'];
  const fields = ['kubeletConfigKey', 'name', 'namespace', 'resourceVersion', 'uid'] as const;
  const doc = (field: string, value: string) =>
    'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: SerializedNodeConfigSource\nsource:\n  configMap:\n' +
    fields.map((f) => `    ${f}: ${f === field ? value : f === 'resourceVersion' ? '"7"' : 'v'}\n`).join('');
  for (const f of fields) {
    const field = `ConfigMapNodeConfigSource.source.configMap.${f}`;
    // UID is a types.UID in k8s.io/api core/v1 (it was said to be a string).
    const type = f === 'uid' ? 'types.UID' : 'string';
    for (const b of bools) t.same(decodeMeta(Buffer.from(doc(f, b))), { state: 'error', error: `failed to decode, error: json: cannot unmarshal bool into Go struct field ${field} of type ${type}` }, `${f}: ${b}`);
    for (const n of numbers) t.same(decodeMeta(Buffer.from(doc(f, n))), { state: 'error', error: `failed to decode, error: json: cannot unmarshal number into Go struct field ${field} of type ${type}` }, `${f}: ${n}`);
    for (const n of nulls) t.match(decodeMeta(Buffer.from(doc(f, n))), { state: 'source', incomplete: [f] }, `${f}: ${n} leaves it empty`);
    for (const s of strings) {
      const d = decodeMeta(Buffer.from(doc(f, s)));
      t.equal(d.state === 'source' && d.source[f], s, `${f}: ${s} stays a string`);
    }
    // Quoted, every form is a string.
    for (const q of [...bools, ...numbers, ...nulls]) {
      const d = decodeMeta(Buffer.from(doc(f, `'${q}'`)));
      t.equal(d.state === 'source' && d.source[f], q, `${f}: '${q}'`);
    }
  }
  // .inf and .nan are floats JSON cannot carry: sigs.k8s.io/yaml's conversion fails first.
  t.same(decodeMeta(Buffer.from(doc('uid', '.nan'))), { state: 'error', error: 'failed to decode, error: json: unsupported value: NaN' });
  t.same(decodeMeta(Buffer.from(doc('uid', '-.Inf'))), { state: 'error', error: 'failed to decode, error: json: unsupported value: -Inf' });
});

t.test('bad bytes: NUL, BOM, CRLF, tabs, line separators', async (t) => {
  const good = metaYaml({ uid: UID, rv: '1' });
  t.same(decodeMeta(Buffer.from(good + '\u0000')), { state: 'error', error: 'failed to decode, error: yaml: control characters are not allowed' }, 'NUL');
  t.equal(decodeMeta(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(good)])).state, 'source', 'a UTF-8 BOM is skipped');
  t.equal(decodeMeta(Buffer.from(good.replace(/\n/g, '\r\n'))).state, 'source', 'CRLF');
  t.match(decodeMeta(Buffer.from(good.replace('    uid', '\tuid'))), { state: 'error', error: /^failed to decode, error: yaml: line 9: found character that cannot start any token$/ }, 'a tab in the indentation');
  t.same(decodeMeta(Buffer.from(good.replace(`uid: ${UID}`, `uid: ${UID}\t`))), decodeMeta(Buffer.from(good)), 'a trailing tab is a blank');
  // U+2028 ends the plain scalar: `cd` starts line 10 at column 0, a key without a `:`.
  t.same(decodeMeta(Buffer.from(good.replace(`uid: ${UID}`, `uid: ab\u2028cd`))), { state: 'error', error: "failed to decode, error: yaml: line 11: could not find expected ':'" }, 'LS in a plain value');
  const ls = decodeMeta(Buffer.from(good.replace(`uid: ${UID}`, `uid: 'ab\u2028      cd'`)));
  t.equal(ls.state === 'source' && ls.source.uid, 'ab\u2028cd', 'LS the kubelet wrote in single quotes reads back as the kubelet reads it');
  t.equal(decodeMeta(Buffer.from([0xff, 0xfe, 0x00])).state, 'error', 'UTF-16 garbage');
});

t.test('1.20–1.22 word a type error as json-iterator does (found by a next-boot review: 1.23 words on every release)', async (t) => {
  const yaml = metaYaml({ uid: 'u1', rv: 'x' }).replace('resourceVersion: x', 'resourceVersion: 10');
  const want = (ctx: string, big: string) =>
    `failed to decode, error: v1beta1.SerializedNodeConfigSource.Source: v1.NodeConfigSource.ConfigMap: v1.ConfigMapNodeConfigSource.ResourceVersion: ReadString: expects " or n, but found 1, error found in #10 byte of ...|${ctx}|..., bigger context ...|${big}|...`;
  for (const v of ['1.20', '1.21', '1.22'] as const) {
    t.same(decodeMeta(Buffer.from(yaml), v), { state: 'error', error: want('Version":10,"uid":"u', 'cfg","namespace":"kube-system","resourceVersion":10,"uid":"u1"}}}') }, `${v}: YAML, through sigs.k8s.io/yaml's JSON`);
  }
  t.match(decodeMeta(Buffer.from(yaml), '1.23'), { state: 'error', error: /json: cannot unmarshal number into Go struct field ConfigMapNodeConfigSource\.source\.configMap\.resourceVersion of type string$/ });
  t.match(decodeMeta(Buffer.from(yaml)), { error: /json: cannot unmarshal number/ }, 'default: 1.23');
  const json = '{"apiVersion":"kubelet.config.k8s.io/v1beta1","kind":"SerializedNodeConfigSource","source":{"configMap":{"uid":7}}}';
  t.match(decodeMeta(Buffer.from(json), '1.21'), { state: 'error', error: /^failed to decode, error: v1beta1\.SerializedNodeConfigSource\.Source: v1\.NodeConfigSource\.ConfigMap: v1\.ConfigMapNodeConfigSource\.UID: ReadString: expects " or n, but found 7/ }, 'JSON as written; UID by its Go name');
});
