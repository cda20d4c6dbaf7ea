// The kubelet v1.23.0's own Bootstrap decisions (shared/vectors/bootstrap.json):
// every assigned × last-known-good state, rebuilt as a real store on disk.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { takeSnapshot, fsPayloadReader } from '../../../lib/store/snapshot.js';
import { predictNextBoot } from '../../../lib/integrity/nextboot.js';
import { judgeConfig } from '../../../lib/integrity/pipeline.js';
import { sharedDir, vectorsMissing, writeTree } from '../../helpers.js';

interface Vector {
  name: string;
  storeFiles: Record<string, string>;
  kubelet: { nextBoot: string; willStart: boolean; statusError: string | null; assignedError: string | null; lastKnownGoodError: string | null; bootstrapError: string | null };
}

const file = path.join(sharedDir, 'vectors', 'bootstrap.json');
if (!fs.existsSync(file)) {
  vectorsMissing(t, file);
} else {
  const vectors = JSON.parse(fs.readFileSync(file, 'utf8')) as Vector[];
  const root = t.testdir();
  let i = 0;
  for (const v of vectors) {
    t.test(v.name, async (t) => {
      const dir = path.join(root, String(i++));
      fs.mkdirSync(path.join(dir, 'store'), { recursive: true });
      writeTree(path.join(dir, 'store'), v.storeFiles);
      const snap = takeSnapshot(dir);
      const nb = predictNextBoot(snap, { reader: fsPayloadReader(snap), judge: judgeConfig({ version: '1.23', argv: [] }), local: { path: null, judgement: null } });
      t.equal(nb.source, v.kubelet.nextBoot, 'next boot source');
      t.equal(nb.willStart, v.kubelet.willStart, 'willStart');
      t.equal(nb.statusError, v.kubelet.statusError, 'Node.Status.Config.Error');
      const sub = (s: string | null) => (s === null ? null : s.split('<dynamic-config-dir>').join(dir));
      t.equal(nb.assignedError, sub(v.kubelet.assignedError), 'assigned error text (go-yaml wording included)');
      if (v.kubelet.nextBoot !== 'none' || v.kubelet.lastKnownGoodError) {
        t.equal(nb.lastKnownGoodError, sub(v.kubelet.lastKnownGoodError), 'last-known-good error text');
      }
    });
  }
}
