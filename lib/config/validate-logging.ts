// The `logging` part of kubelet validation, which lives in component-base and changed
// with every release: 1.20/1.21 logs.Options.Validate (plain errors), 1.22 and 1.23
// ValidateLoggingConfiguration (field errors; 1.23 adds verbosity and vmodule checks).
// "Non-default" klog flags are those given on the command line with a value that differs
// from klog's default; the caller passes them in (parseKubeletFlags collects them).

import { goQuote } from './gostrconv.js';
import { atLeast, type KubeletVersion } from './version.js';

const MAX_INT32 = 2147483647;

/** Formats the kubelet binary registers: text (built in) and json (logs/json/register). */
export const LOG_FORMATS = ['text', 'json'] as const;

/** klog's flags with their default values, as a non-text format refuses them. */
export const KLOG_FLAG_DEFAULTS: Readonly<Record<string, string>> = {
  'add-dir-header': 'false',
  'alsologtostderr': 'false',
  'log-backtrace-at': ':0',
  'log-dir': '',
  'log-file': '',
  'log-file-max-size': '1800',
  'logtostderr': 'true',
  'one-output': 'false',
  'skip-headers': 'false',
  'skip-log-headers': 'false',
  'stderrthreshold': '2',
  'vmodule': '',
};

const SEVERITY: Record<string, string> = { INFO: '0', WARNING: '1', ERROR: '2', FATAL: '3' };
const BOOL_FLAGS = new Set(['add-dir-header', 'alsologtostderr', 'logtostderr', 'one-output', 'skip-headers', 'skip-log-headers']);

function normalise(name: string, value: string): string {
  if (BOOL_FLAGS.has(name)) return ['1', 't', 'T', 'true', 'TRUE', 'True'].includes(value) ? 'true' : 'false';
  if (name === 'stderrthreshold') return SEVERITY[value.toUpperCase()] ?? value;
  return value;
}

/** The klog flags given with a non-default value, in the order Go visits them (sorted). */
export function nonDefaultKlogFlags(klogFlags: Record<string, string>, version: KubeletVersion): string[] {
  return Object.keys(KLOG_FLAG_DEFAULTS)
    .filter((name) => !(name === 'vmodule' && atLeast(version, '1.23')))
    .filter((name) => name in klogFlags && normalise(name, klogFlags[name]!) !== KLOG_FLAG_DEFAULTS[name])
    .map((name) => (atLeast(version, '1.23') ? name : name.replace(/-/g, '_')))
    .sort();
}

export interface LoggingInput {
  format: string;
  verbosity: number;
  vmodule: { filePattern?: string; verbosity?: number }[];
}

export interface LoggingFailure {
  field: string;
  rule: string;
  message: string;
}

const invalid = (field: string, value: string, detail: string) => `${field}: Invalid value: ${value}: ${detail}`;
const hex = (n: number) => '0x' + n.toString(16);

/** logging errors, deduplicated as ErrorList.ToAggregate does. */
export function validateLogging(c: LoggingInput, version: KubeletVersion, klogFlags: Record<string, string> = {}): LoggingFailure[] {
  const out: LoggingFailure[] = [];
  const push = (field: string, rule: string, message: string) => {
    if (!out.some((f) => f.message === message)) out.push({ field, rule, message });
  };
  const known = (LOG_FORMATS as readonly string[]).includes(c.format);
  if (!atLeast(version, '1.22')) {
    // 1.20/1.21 copy a non-empty format into logs.Options, whose default is text: an
    // empty format (an __internal payload) is text there.
    const format = c.format === '' ? 'text' : c.format;
    if (format !== 'text') {
      for (const flag of nonDefaultKlogFlags(klogFlags, version)) push('logging.format', 'logging-format-flag', `non-default logging format doesn't honor flag: ${flag}`);
    }
    if (!(LOG_FORMATS as readonly string[]).includes(format)) push('logging.format', 'logging-format', `unsupported log format: ${format}`);
    return out;
  }
  if (c.format !== 'text') {
    for (const flag of nonDefaultKlogFlags(klogFlags, version)) {
      push('logging.format', 'logging-format-flag', invalid('logging.format', goQuote(c.format), `Non-default format doesn't honor flag: ${flag}`));
    }
  }
  if (!known) push('logging.format', 'logging-format', invalid('logging.format', goQuote(c.format), 'Unsupported log format'));
  if (!atLeast(version, '1.23')) return out;
  if (c.verbosity > MAX_INT32) push('logging.verbosity', 'logging-verbosity', invalid('logging.verbosity', hex(c.verbosity), `Must be <= ${MAX_INT32}`));
  if (c.vmodule.length > 0 && c.format !== '' && c.format !== 'text') {
    push('logging.vmodule', 'logging-vmodule-format', 'logging.vmodule: Forbidden: Only supported for text log format');
  }
  c.vmodule.forEach((item, i) => {
    const field = `logging.vmodule[${i}]`;
    const pattern = item.filePattern ?? '';
    if (pattern === '') push(field, 'logging-vmodule-pattern', `${field}: Required value: File pattern must not be empty`);
    if (/[=,]/.test(pattern)) push(field, 'logging-vmodule-pattern', invalid(field, goQuote(pattern), 'File pattern must not contain equal sign or comma'));
    if ((item.verbosity ?? 0) > MAX_INT32) push(field, 'logging-vmodule-verbosity', invalid(field, hex(item.verbosity!), `Must be <= ${MAX_INT32}`));
  });
  return out;
}
