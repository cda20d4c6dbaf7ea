// The order in which reports list names, paths and codes: Unicode's root collation, as an
// English collator sorts, whatever the node's LANG says (String.prototype.localeCompare follows
// LANG: under da_DK "aa" sorts after "z", under th_TH punctuation is ignored, so two nodes would
// list the same store differently, and a fleet's merged reports would disagree). And without
// building ICU's collator for the strings nearly every call compares: the first collator of a
// process costs ~70 M instructions (~20 ms), a quarter of a `journal --file` start.

/**
 * Within each of these two alphabets, root collation orders strings by one primary weight per
 * character, in the order `_` `-` `.` `/`, digits, letters (case is only a tie-break, and each
 * alphabet has one case): code-unit order once `_` is moved below `-`. UIDs, resourceVersions,
 * store paths, digests, node names and finding codes are written in them.
 */
const LOWER = /^[-./_0-9a-z]*$/;
const UPPER = /^[-./_0-9A-Z]*$/;
const UNDERSCORE = 0x5f;
/** `,`: just below `-` in code units, as `_` is in root collation. */
const UNDERSCORE_WEIGHT = 0x2c;

function weight(c: number): number {
  return c === UNDERSCORE ? UNDERSCORE_WEIGHT : c;
}

function compareSimple(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = weight(a.charCodeAt(i)) - weight(b.charCodeAt(i));
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/** English has no tailoring of root collation; "und" would mean the default locale, LANG's. */
let collator: Intl.Collator | undefined;

/** -1, 0 or 1: root collation's order, the same on every node. */
export function compareText(a: string, b: string): number {
  if ((LOWER.test(a) && LOWER.test(b)) || (UPPER.test(a) && UPPER.test(b))) return compareSimple(a, b);
  const r = (collator ??= new Intl.Collator('en')).compare(a, b);
  return r < 0 ? -1 : r > 0 ? 1 : 0;
}
