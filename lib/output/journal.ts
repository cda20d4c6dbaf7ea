// `journal -f` prints events one at a time: a text line, a JSON line, or a YAML document each.
// An event carries its own `kind` field, so each is wrapped: {apiVersion, kind: JournalEvent, event}.

import { toYaml, type Format } from './print.js';
import type { JournalEvent } from '../journal/events.js';

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
