// How a failed command line ends: a message (or a JSON/YAML error document under -o json/yaml)
// on stderr and the exit code the error carries. Loaded only when something failed.

import { asCkptError, EXIT } from '../../lib/errors.js';
import { errorDocument } from '../../lib/output/document.js';
import { toYaml } from '../../lib/output/print.js';
import { printableBlock, printableMessage } from '../../lib/output/sanitize.js';
import { optionWords, selfCommand, selfOptionsOf, withSelf } from '../../lib/output/self.js';
import { lazyStderr } from './stdio.js';

/** The output format, read from raw argv so that even a parse failure honours -o json. */
export function rawFormat(given: readonly string[]): string {
  let f = 'text';
  const argv = optionWords(given);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '-o' || a === '--output') f = argv[i + 1] ?? f;
    else if (a.startsWith('--output=')) f = a.slice(9);
    else if (a.startsWith('-o') && a.length > 2 && !a.startsWith('--')) f = a.slice(2).replace(/^=/, '');
  }
  return f;
}

export function reportError(err: unknown, argv: readonly string[]): number {
  const e = asCkptError(err);
  const verbose = optionWords(argv).some((a) => a === '-v' || a === '--verbose');
  const format = rawFormat(argv);
  // Through the sink that survives a reader gone (`2>&1 | head -1`): the exit code stays the error's.
  const stderr = lazyStderr();
  if (format === 'json' || format === 'yaml') {
    const doc = errorDocument(e);
    stderr.write(format === 'json' ? `${JSON.stringify(doc)}\n` : toYaml(doc));
  } else {
    // A command suggested in the message or hint gets the options that chose the store (self.ts).
    const self = selfCommand(selfOptionsOf(argv));
    stderr.write(`error: ${printableMessage(withSelf(e.message, self))}\n`);
    if (e.hint) stderr.write(`hint: ${printableMessage(withSelf(e.hint, self))}\n`);
    if (verbose && e.exitCode === EXIT.INTERNAL && e.stack) stderr.write(`${printableBlock(e.stack)}\n`);
  }
  return e.exitCode;
}

