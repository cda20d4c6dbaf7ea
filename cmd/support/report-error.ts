// How a failed command line ends: a message (or a JSON/YAML error document under -o json/yaml)
// on stderr and the exit code the error carries. Loaded only when something failed.

import { asCkptError, EXIT } from '../../lib/errors.js';
import { errorDocument } from '../../lib/output/document.js';
import { toYaml } from '../../lib/output/print.js';
import { printableBlock, printableMessage } from '../../lib/output/sanitize.js';

/** The output format, read from raw argv so that even a parse failure honours -o json. */
export function rawFormat(argv: readonly string[]): string {
  let f = 'text';
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '-o' || a === '--output') f = argv[i + 1] ?? f;
    else if (a.startsWith('--output=')) f = a.slice(9);
    else if (a.startsWith('-o') && a.length > 2 && !a.startsWith('--')) f = a.slice(2).replace(/^=/, '');
  }
  return f;
}

export function reportError(err: unknown, argv: readonly string[], verbose: boolean): number {
  const e = asCkptError(err);
  const format = rawFormat(argv);
  if (format === 'json' || format === 'yaml') {
    const doc = errorDocument(e);
    process.stderr.write(format === 'json' ? `${JSON.stringify(doc)}\n` : toYaml(doc));
  } else {
    process.stderr.write(`error: ${printableMessage(e.message)}\n`);
    if (e.hint) process.stderr.write(`hint: ${printableMessage(e.hint)}\n`);
    if (verbose && e.exitCode === EXIT.INTERNAL && e.stack) process.stderr.write(`${printableBlock(e.stack)}\n`);
  }
  return e.exitCode;
}

