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
    ['garbage: [', /^failed to decode, error: yaml: line 1: /],
    [metaYaml({ uid: UID, rv: '1' }).replace('kind: SerializedNodeConfigSource', 'kind: ConfigMap'), 'failed to decode, error: no kind "ConfigMap" is registered for version "kubelet.config.k8s.io/v1beta1" in scheme "k8s.io/kubernetes/pkg/kubelet/apis/config/scheme/scheme.go:32"'],
    ['apiVersion: kubelet.config.k8s.io/v1beta1\nkind: SerializedNodeConfigSource\nsource: {}\n', 'invalid NodeConfigSource, exactly one subfield must be non-nil, but all were nil, NodeConfigSource was: &v1.NodeConfigSource{ConfigMap:(*v1.ConfigMapNodeConfigSource)(nil)}'],
    ['apiVersion: kubelet.config.k8s.io/v1beta1\nsource: {}\n', /^failed to decode, error: Object 'Kind' is missing in 'apiVersion/],
    ['kind: SerializedNodeConfigSource\n', /^failed to decode, error: Object 'apiVersion' is missing in/],
    [metaYaml({ uid: UID, rv: 'x' }).replace('resourceVersion: x', 'resourceVersion: 12'), 'failed to decode, error: json: cannot unmarshal number into Go struct field ConfigMapNodeConfigSource.source.configMap.resourceVersion of type string'],
    [metaYaml({ uid: UID, rv: '1' }).replace('kind: SerializedNodeConfigSource', 'kind: KubeletConfiguration'), /^failed to cast decoded remote config source/],
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
