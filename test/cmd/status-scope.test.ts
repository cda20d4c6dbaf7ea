// status judges only the payloads the meta files name; verify judges every checkpoint. A
// store whose other checkpoint is broken must not read "Problems none" next to a failing verify.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { copyFixture, runCli } from '../helpers.js';

const UID = '946d785e-998a-11e7-a8dd-42010a800006';

t.test('Problems says which checkpoints it covers when verify would check more', async (t) => {
  const dcd = copyFixture('stores/healthy');
  const plain = runCli(['--dir', dcd, 'status', '--no-journal']);
  t.match(plain.stdout, /^Problems {9}none\n/m, 'every checkpoint is named: plain none');
  fs.mkdirSync(path.join(dcd, 'store/checkpoints', UID, '200000'));
  fs.writeFileSync(path.join(dcd, 'store/checkpoints', UID, '200000/kubelet'), 'kind: [\n');
  const s = runCli(['--dir', dcd, 'status', '--no-journal']);
  t.equal(s.code, 0, 'the next boot is fine');
  t.match(s.stdout, new RegExp(`^Problems {9}none \\(\`kubelet-ckpt --dir ${dcd.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} verify\` also checks the other checkpoint\\)$`, 'm'), 'the suggestion names the store as given');
  t.equal(runCli(['--dir', dcd, 'verify']).code, 1, 'verify finds the broken one');
});
