import t from 'tap';
import { goUnquote, looksLikeKlog, parseKlogHeader, parseStructured } from '../../../lib/journal/klog.js';

t.test('klog header: the byte layout of formatHeader', async (t) => {
  const h = parseKlogHeader('E0824 13:16:04.368361  278409 controller.go:151] kubelet config controller: boom');
  t.match(h, { severity: 'E', month: 8, day: 24, hour: 13, minute: 16, second: 4, micros: 368361, pid: 278409, file: 'controller.go', body: 'kubelet config controller: boom' });
  // pid padded to 7 columns; a short pid has more spaces
  t.equal(parseKlogHeader('I0305 20:45:07.756948    2334 controller.go:101] x')?.pid, 2334);
  // -add_dir_header puts a directory before the file
  t.equal(parseKlogHeader('I0305 20:45:07.756948    2334 kubeletconfig/controller.go:101] x')?.file, 'kubeletconfig/controller.go');
  t.equal(parseKlogHeader('F0826 16:55:47.291827  388430 kubelet.go:1384] Failed')?.severity, 'F');
  t.equal(parseKlogHeader('W1231 23:59:59.999999 1234567 a.go:1] ')?.body, '');
});

t.test('klog header: not headers', async (t) => {
  for (const s of ['', 'I0824', 'X0824 13:16:04.368361  1 a.go:1] x', 'I1324 13:16:04.368361  1 a.go:1] x', 'I0800 13:16:04.368361  1 a.go:1] x', 'I0824 13:16:04  1 a.go:1] x', '  "kind": "KubeletConfiguration",', 'goroutine 1 [running]:']) {
    t.equal(parseKlogHeader(s), null, JSON.stringify(s));
    t.equal(looksLikeKlog(s), false);
  }
});

t.test('structured: message, err right after it, quoted and unquoted values', async (t) => {
  const s = parseStructured('"Kubelet config controller successfully downloaded remoteConfigMap" apiPath="/api/v1/namespaces/kube-system/configmaps/cm" configMapUID=705ab4f5-6393-11e8-b7cc-42010a800002 resourceVersion="1326"');
  t.equal(s?.msg, 'Kubelet config controller successfully downloaded remoteConfigMap');
  t.same([...s!.kv], [
    ['apiPath', '/api/v1/namespaces/kube-system/configmaps/cm'],
    ['configMapUID', '705ab4f5-6393-11e8-b7cc-42010a800002'],
    ['resourceVersion', '1326'],
  ]);
  const e = parseStructured('"Kubelet config controller" err="failed to decode: Object \'Kind\' is missing in \'{\\n  \\"a\\": 1\\n}\'" reason="failed to load config, see Kubelet log for details"');
  t.equal(e?.kv.get('err'), 'failed to decode: Object \'Kind\' is missing in \'{\n  "a": 1\n}\'');
  t.equal(e?.kv.get('reason'), 'failed to load config, see Kubelet log for details');
});

t.test('structured: odd-length lists, structs with spaces, junk', async (t) => {
  t.equal(parseStructured('"msg" key="(MISSING)"')?.kv.get('key'), '(MISSING)');
  const s = parseStructured('"Event created" event=&Event{ObjectMeta:{n  0 } Reason:KubeletConfigChanged} eventType="Normal"');
  t.equal(s?.kv.get('event'), '&Event{ObjectMeta:{n  0 } Reason:KubeletConfigChanged}');
  t.equal(s?.kv.get('eventType'), 'Normal');
  t.equal(parseStructured('not quoted'), null);
  t.equal(parseStructured('"unterminated'), null);
  t.equal(parseStructured('"a"trailing')?.msg, 'a');
  t.equal(parseStructured('"a" k="unterminated')?.kv.get('k'), '"unterminated');
});

t.test('Go %q unquoting', async (t) => {
  const cases: Array<[string, string]> = [
    ['"plain"', 'plain'],
    ['"tab\\tnl\\ncr\\rq\\"bs\\\\"', 'tab\tnl\ncr\rq"bs\\'],
    ['"\\x41\\x42"', 'AB'],
    ['"\\xc3\\xa9"', 'é'],
    ['"\\xff"', '\ufffd'],
    ['"\\u00e9\\U0001F600"', 'é😀'],
    ['"\\101"', 'A'],
    ['"\\a\\b\\f\\v"', '\x07\b\f\v'],
    ['"\\q"', '\\q'],
  ];
  for (const [q, want] of cases) t.equal(goUnquote(q, 0)?.value, want, q);
  t.equal(goUnquote('"abc" rest', 0)?.end, 5);
  t.equal(goUnquote('"abc\\', 0), null);
});
