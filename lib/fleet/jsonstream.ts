// Splits text holding one or more JSON documents — one report, NDJSON, or pretty-printed
// reports written one after the other (`kubectl logs` of many pods) — into the documents,
// and says where a document is cut short or not JSON at all.

export type Piece = { ok: true; value: unknown; line: number } | { ok: false; error: string; line: number };

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);

/** The end (exclusive) of the JSON object/array starting at `i`, or -1 when the text ends first. */
function endOfValue(s: string, i: number): number {
  let depth = 0;
  let inStr = false;
  for (let k = i; k < s.length; k++) {
    const c = s.charCodeAt(k);
    if (inStr) {
      if (c === 0x5c) k++;
      else if (c === 0x22) inStr = false;
      continue;
    }
    if (c === 0x22) inStr = true;
    else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      if (--depth === 0) return k + 1;
    }
  }
  return -1;
}

function lineAt(s: string, i: number, from: number, line: number): number {
  for (let k = from; k < i; k++) if (s.charCodeAt(k) === 0x0a) line++;
  return line;
}

export function splitJson(s: string): Piece[] {
  // The common case, one document per file: one parse.
  try {
    return [{ ok: true, value: JSON.parse(s), line: 1 }];
  } catch {
    /* several documents, or damage: scan */
  }
  const out: Piece[] = [];
  let i = 0;
  let line = 1;
  let lineFrom = 0;
  while (i < s.length) {
    while (i < s.length && WS.has(s.charCodeAt(i))) i++;
    if (i >= s.length) break;
    line = lineAt(s, i, lineFrom, line);
    lineFrom = i;
    const c = s.charCodeAt(i);
    if (c !== 0x7b && c !== 0x5b) {
      // Not a document: skip the line (a log prefix, a shell message).
      const nl = s.indexOf('\n', i);
      out.push({ ok: false, error: `not JSON: ${JSON.stringify(s.slice(i, Math.min(nl === -1 ? s.length : nl, i + 40)))}`, line });
      i = nl === -1 ? s.length : nl + 1;
      continue;
    }
    const end = endOfValue(s, i);
    if (end === -1) {
      out.push({ ok: false, error: 'truncated JSON (the text ends inside a document)', line });
      break;
    }
    try {
      out.push({ ok: true, value: JSON.parse(s.slice(i, end)), line });
    } catch (err) {
      out.push({ ok: false, error: `corrupt JSON: ${(err as Error).message}`, line });
    }
    i = end;
  }
  return out;
}
