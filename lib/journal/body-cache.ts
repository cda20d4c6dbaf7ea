// A kubelet repeats the same few config-controller messages endlessly (a sync failure every
// few seconds for days). Each distinct message body is classified once: the cache maps the
// body to its classification and to one copy of the text, which every event of that body
// then shares (a listed window of 20000 events holds a few strings, not 20000).

import { classifyKlogBody, type Classified } from './catalog.js';

/** Distinct bodies remembered; when full the cache starts over (a journal of ever-new texts gains nothing from it). */
export const BODY_CACHE_ENTRIES = 4096;
/** Longer bodies are classified every time (they are rare, and the cache's memory stays ≤ ~16 MiB). */
export const BODY_CACHE_MAX_CHARS = 2048;

export interface BodyClass {
  /** The text, the one copy events share. */
  body: string;
  cls: Classified | null;
  /** The line matters even without a class (counted as skipped). */
  relevant: boolean;
}

/** Marker texts of lines worth a "skipped" count when they classify as nothing. */
export const RELEVANT_TEXT = /onfig controller|ynamic|a valid configuration/;

interface Entry {
  body: string;
  /** By caller: another file, configsync.go. */
  other?: BodyClass;
  sync?: BodyClass;
}

export class BodyCache {
  private readonly map = new Map<string, Entry>();

  /** The class of a message after a klog header; `syncFile`: the header's file is configsync.go. */
  get(body: string, syncFile: boolean): BodyClass {
    if (body.length > BODY_CACHE_MAX_CHARS) return classify(body, syncFile);
    let e = this.map.get(body);
    if (!e) {
      if (this.map.size >= BODY_CACHE_ENTRIES) this.map.clear();
      e = { body };
      this.map.set(body, e);
    }
    return syncFile ? (e.sync ??= classify(e.body, true)) : (e.other ??= classify(e.body, false));
  }

  get size(): number {
    return this.map.size;
  }
}

export function classify(body: string, syncFile: boolean): BodyClass {
  const cls = classifyKlogBody(body, syncFile ? 'configsync.go' : null);
  return { body, cls, relevant: cls !== null || RELEVANT_TEXT.test(body) };
}
