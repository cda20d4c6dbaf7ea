// Suggested commands get the options that chose the store (found by an operator review: pasted
// without --dir they failed); a file's content and the sides of a change never do.
import t from 'tap';
import { selfCommand, selfOptionsOf, withSelf } from '../../../lib/output/self.js';
import { sanitizeForText } from '../../../lib/output/print.js';

t.test('selfCommand quotes for a shell; selfOptionsOf reads a raw command line as yargs does', async (t) => {
  t.equal(selfCommand({}), 'kubelet-ckpt');
  t.equal(selfCommand({ root: '/mnt/node', dir: '/var/lib/kubelet/dyn config' }), "kubelet-ckpt --root /mnt/node --dir '/var/lib/kubelet/dyn config'");
  t.equal(selfCommand({ kubeletFlags: '--max-pods=10', kubeletVersion: '1.21' }), 'kubelet-ckpt --kubelet-flags=--max-pods=10 --kubelet-version 1.21', 'a value that starts with - goes as --opt=value');
  t.same(selfOptionsOf(['--dir', '/a', 'status', '--root=/r', '--kubelet-config', 'c.yaml']), { dir: '/a', root: '/r', kubeletConfig: 'c.yaml' });
  t.same(selfOptionsOf(['show', '--', '--dir', '/x']), {}, 'nothing after --');
  t.same(selfOptionsOf(['--dir']), {}, 'a missing value');
});

t.test('withSelf rewrites `kubelet-ckpt … and (kubelet-ckpt … only', async (t) => {
  const self = 'kubelet-ckpt --dir /d';
  t.equal(withSelf('see `kubelet-ckpt verify` (kubelet-ckpt ls, verify)', self), 'see `kubelet-ckpt --dir /d verify` (kubelet-ckpt --dir /d ls, verify)');
  t.equal(withSelf('  kubelet-ckpt --dir /d reset all', self), '  kubelet-ckpt --dir /d reset all', 'a next step already has them');
  t.equal(withSelf('`kubelet-ckpt verify`', 'kubelet-ckpt'), '`kubelet-ckpt verify`', 'nothing to add');
});

t.test('sanitizeForText rewrites messages, never content', async (t) => {
  const r = sanitizeForText({ warnings: ['run `kubelet-ckpt verify`'], files: [{ diff: '# see `kubelet-ckpt verify`\n', text: '(kubelet-ckpt ls)', before: '`kubelet-ckpt x`', after: '`kubelet-ckpt y`' }] }, 'kubelet-ckpt --root /r');
  t.same(r, { warnings: ['run `kubelet-ckpt --root /r verify`'], files: [{ diff: '# see `kubelet-ckpt verify`\n', text: '(kubelet-ckpt ls)', before: '`kubelet-ckpt x`', after: '`kubelet-ckpt y`' }] });
});
