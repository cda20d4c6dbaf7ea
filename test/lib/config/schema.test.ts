import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { FIELD_TABLE, fieldsOf, KUBELET_CONFIGURATION, lookupField } from '../../../lib/config/schema.js';

const libDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../lib/config');

t.test('the field table describes v1beta1', async (t) => {
  const table: [string, string, string, boolean, string][] = [
    ['syncFrequency', 'duration', 'v1.Duration', false, '1.20'],
    ['cpuCFSQuotaPeriod', 'duration', 'v1.Duration', true, '1.20'],
    ['imageGCHighThresholdPercent', 'int32', 'int32', true, '1.20'],
    ['maxOpenFiles', 'int64', 'int64', false, '1.20'],
    ['memoryThrottlingFactor', 'float64', 'float64', true, '1.22'],
    ['evictionHard', 'map', 'map[string]string', false, '1.20'],
    ['featureGates', 'map', 'map[string]bool', false, '1.20'],
    ['clusterDNS', 'list', '[]string', false, '1.20'],
    ['registerWithTaints', 'list', '[]v1.Taint', false, '1.23'],
    ['reservedMemory', 'list', '[]v1beta1.MemoryReservation', false, '1.21'],
    ['authentication.webhook.enabled', 'bool', 'bool', true, '1.20'],
    ['authorization.mode', 'string', 'v1beta1.KubeletAuthorizationMode', false, '1.20'],
    ['logging.flushFrequency', 'duration-ns', 'time.Duration', false, '1.23'],
    ['logging.options.json.infoBufferSize', 'quantity', 'resource.Quantity', false, '1.23'],
    ['memorySwap.swapBehavior', 'string', 'string', false, '1.22'],
  ];
  for (const [p, kind, goType, pointer, since] of table) t.same(lookupField(p), { path: p, kind, goType, pointer, since, ...(lookupField(p)?.elemKind ? { elemKind: lookupField(p)!.elemKind } : {}) }, p);
  t.equal(lookupField('registerNode', '1.22'), undefined);
  t.ok(lookupField('registerNode', '1.23'));
  t.equal(new Set(FIELD_TABLE.map((f) => f.path)).size, FIELD_TABLE.length, 'paths are unique');
  const top = (v: '1.20' | '1.23') => fieldsOf(KUBELET_CONFIGURATION.struct!, v).length;
  t.ok(top('1.23') > top('1.20'));
});

t.test('lib/config does no I/O and never prints or exits', async (t) => {
  for (const file of fs.readdirSync(libDir).filter((f) => f.endsWith('.ts'))) {
    const src = fs.readFileSync(path.join(libDir, file), 'utf8');
    t.notMatch(src, /console\.|process\.(exit|argv|stdout|stderr)|from 'node:fs'|readFileSync/, file);
  }
});
