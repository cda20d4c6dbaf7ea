// `reset --to lkg` after the kubelet wrote meta/last-known-good with characters go-yaml reads
// as line breaks (U+2028 / U+2029 inside single quotes, from encode-random.json): the tool
// reads the source back as the kubelet does and writes the kubelet's own bytes.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { GOOD_PAYLOAD, json, runCli, sharedDir, vectorsMissing, writeTree } from '../helpers.js';
import type { ConfigMapSource } from '../../lib/store/types.js';

/** A name kubelet-ckpt joins into a path (DESIGN.md UNSAFE_REF). */
const safeName = (n: string) => n !== '.' && n !== '..' && !/[/\0]/.test(n) && Buffer.byteLength(n) <= 255;

interface EncodeVector { name: string; source: ConfigMapSource; ok: boolean; bytesB64?: string; roundTrip?: boolean }

const file = path.join(sharedDir, 'vectors', 'encode-random.json');
if (!fs.existsSync(file)) {
  vectorsMissing(t, file);
} else {
  const vectors = JSON.parse(fs.readFileSync(file, 'utf8')) as EncodeVector[];
  // Written by the kubelet, read back equal, a raw LS or PS in the file, a key verify accepts.
  const picks = vectors.filter((v) => v.ok && v.roundTrip && /[\u2028\u2029]/.test(Buffer.from(v.bytesB64!, 'base64').toString()) && /^[-._a-zA-Z0-9]+$/.test(v.source.kubeletConfigKey) && [v.source.uid, v.source.resourceVersion].every(safeName));
  t.ok(picks.length > 0, `${picks.length} such sources in the vectors`);
  for (const v of picks.slice(0, 3)) {
    t.test(v.name, async (t) => {
      const dcd = t.testdir({});
      const lkg = Buffer.from(v.bytesB64!, 'base64');
      writeTree(dcd, {
        'store/meta/assigned': '',
        'store/meta/last-known-good': lkg,
        [`store/checkpoints/${v.source.uid}/${v.source.resourceVersion}/${v.source.kubeletConfigKey}`]: GOOD_PAYLOAD,
      });
      const s = json<{ lastKnownGood: { name: string } | null }>(runCli(['--dir', dcd, 'status', '--no-journal', '-o', 'json']));
      t.equal(s.lastKnownGood?.name, v.source.name, 'status reads the name the kubelet reads');
      const r = runCli(['--dir', dcd, 'reset', 'assigned', '--to', 'lkg', '--yes', '-o', 'json']);
      t.equal(r.code, 0, r.stderr);
      t.ok(fs.readFileSync(path.join(dcd, 'store/meta/assigned')).equals(lkg), 'meta/assigned holds the kubelet\'s own bytes');
    });
  }
}
