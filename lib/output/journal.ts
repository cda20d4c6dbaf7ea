// The journal's progress line on stderr; and `journal -f`, which prints events one at a time: a text line, a JSON line, or a YAML document each.
// An event carries its own `kind` field, so each is wrapped: {apiVersion, kind: JournalEvent, event}.

import { toYaml, type Format } from './print.js';
import type { Sink } from './streams.js';
import type { JournalEvent } from '../journal/events.js';
import { PROGRESS_MIN_BYTES, progressLine } from '../journal/render.js';

export const API_VERSION = 'kubelet-ckpt/v1';

export interface JournalEventDocument {
  apiVersion: typeof API_VERSION;
  kind: 'JournalEvent';
  event: JournalEvent;
}

/** One followed event as `format` prints it (JSON Lines for json, `---` documents for yaml); text comes from lib/journal/render. */
export function followedEvent(ev: JournalEvent, format: Exclude<Format, 'text'>): string {
  const doc: JournalEventDocument = { apiVersion: API_VERSION, kind: 'JournalEvent', event: ev };
  return format === 'json' ? `${JSON.stringify(doc)}\n` : `---\n${toYaml(doc)}`;
}

/** The library's progress line, redrawn on stderr (a TTY only) for inputs over 100 MiB. */
export function progressDisplay(err: Sink, label: string) {
  let shown = false;
  let last = 0;
  return {
    update: (p: { bytes: number; total: number | null; events: number }) => {
      const now = Date.now();
      if ((p.total ?? p.bytes) < PROGRESS_MIN_BYTES || now - last < 200) return;
      last = now;
      shown = true;
      err.write(`\r\u001b[2K${progressLine(p, label)}`);
    },
    done: () => {
      if (shown) err.write('\r\u001b[2K');
    },
  };
}
