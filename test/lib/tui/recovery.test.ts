// The TUI's recovery dialogs: the CLI's confirmation text, escaped as the CLI escapes it.
import t from 'tap';
import { listLines } from '../../../lib/tui/recovery.js';
import type { RecoveryResult } from '../../../lib/recovery/index.js';

t.test('found by review: a newline in a name is \\x0a on its line, never a line of its own', async (t) => {
  const preview: RecoveryResult = {
    dryRun: true,
    changes: [{ path: 'checkpoints/abcd\n  (referenced, kept)/9', before: 'abcd\n  (referenced, kept)/9', after: null, kind: 'checkpoint', files: ['kubelet'], bytes: 1900 }],
    backup: null,
    warnings: [],
    freedBytes: 1900,
    command: 'prune',
    store: '/s/store',
  };
  const text = listLines({ warnings: [], refusals: [] }, preview).map((l) => l.text);
  t.notOk(text.some((l) => /^\s*\(referenced, kept\)/.test(l)), text.join('\n'));
  t.ok(text.some((l) => l.includes('abcd\\x0a  (referenced, kept)/9')), 'escaped in place, as the CLI prints it');
});
