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

/** Slots of the byte-keyed front of the cache (direct-mapped: a collision only costs a decode). */
export const BYTE_SLOTS = 512;

interface Slot {
  bytes: Buffer;
  length: number;
  syncFile: boolean;
  cls: BodyClass;
}

/**
 * The front of the cache, keyed by the body's raw bytes: a body seen before is found without
 * being decoded or hashed as a string (a few sampled bytes choose the slot, one compare
 * confirms it). Raw bytes equal means decoded and cleaned texts equal, so the class is the
 * one the string cache gave for them.
 */
export class ByteBodyIndex {
  private readonly slots: (Slot | undefined)[] = new Array(BYTE_SLOTS);

  find(buf: Buffer, start: number, end: number, syncFile: boolean): BodyClass | null {
    const s = this.slots[slotOf(buf, start, end)];
    if (s === undefined || s.length !== end - start || s.syncFile !== syncFile) return null;
    return buf.compare(s.bytes, 0, s.length, start, end) === 0 ? s.cls : null;
  }

  remember(buf: Buffer, start: number, end: number, syncFile: boolean, cls: BodyClass): void {
    const length = end - start;
    if (length > BODY_CACHE_MAX_CHARS) return;
    const i = slotOf(buf, start, end);
    let s = this.slots[i];
    if (s === undefined || s.bytes.length < length) {
      s = { bytes: Buffer.allocUnsafe(Math.max(64, length)), length, syncFile, cls };
      this.slots[i] = s;
    }
    buf.copy(s.bytes, 0, start, end);
    s.length = length;
    s.syncFile = syncFile;
    s.cls = cls;
  }
}

/** The slot for `buf[start, end)`: its length, its last byte and 8 bytes spread over it. */
function slotOf(buf: Buffer, start: number, end: number): number {
  const n = end - start;
  if (n === 0) return 0;
  let h = n * 31 + buf[end - 1]!;
  for (let k = 0; k < 8; k++) h = (h * 31 + buf[start + ((n * k) >> 3)]!) | 0;
  return (h >>> 0) % BYTE_SLOTS;
}
