// The `/` filter: words that must all match a checkpoint row.
//   5808  42315        a substring of UID/RV or of the ConfigMap name (case-insensitive)
//   uid:5808 rv:423    a UID prefix, a resourceVersion substring
//   name:worker        a substring of the ConfigMap namespace/name
//   is:error is:warning is:ok is:assigned is:lkg is:boot is:marked
//   A L B ! ?          the list's markers: the same as is:assigned, is:lkg, is:boot, is:error, is:warning
//   -word              anything above, negated

export type Is = 'error' | 'warning' | 'ok' | 'assigned' | 'lkg' | 'boot' | 'marked';

export type Term =
  | { kind: 'text'; value: string; negate: boolean }
  | { kind: 'uid'; value: string; negate: boolean }
  | { kind: 'rv'; value: string; negate: boolean }
  | { kind: 'name'; value: string; negate: boolean }
  | { kind: 'is'; value: Is; negate: boolean };

export interface Filter {
  /** The text as typed. */
  source: string;
  terms: Term[];
  /** Why a word was not understood (the word is then ignored). */
  errors: string[];
}

const IS: Record<string, Is> = {
  error: 'error',
  errors: 'error',
  warning: 'warning',
  warnings: 'warning',
  ok: 'ok',
  assigned: 'assigned',
  lkg: 'lkg',
  'last-known-good': 'lkg',
  boot: 'boot',
  marked: 'marked',
};
const MARKERS: Record<string, Is> = { A: 'assigned', L: 'lkg', B: 'boot', '!': 'error', '?': 'warning' };

export const EMPTY_FILTER: Filter = { source: '', terms: [], errors: [] };

export function parseFilter(source: string): Filter {
  const terms: Term[] = [];
  const errors: string[] = [];
  for (const raw of source.split(/\s+/).filter(Boolean)) {
    const negate = raw.length > 1 && raw.startsWith('-');
    const word = negate ? raw.slice(1) : raw;
    if (MARKERS[word]) {
      terms.push({ kind: 'is', value: MARKERS[word]!, negate });
      continue;
    }
    const m = /^([a-z]+):(.*)$/.exec(word);
    if (!m) {
      terms.push({ kind: 'text', value: word.toLowerCase(), negate });
      continue;
    }
    const [, field, value] = m as unknown as [string, string, string];
    if (field === 'is') {
      const is = IS[value.toLowerCase()];
      if (is) terms.push({ kind: 'is', value: is, negate });
      else errors.push(`unknown is:${value} (is:error, warning, ok, assigned, lkg, boot, marked)`);
    } else if (field === 'uid' || field === 'rv' || field === 'name') {
      if (value === '') errors.push(`${field}: needs a value`);
      else terms.push({ kind: field, value: field === 'rv' ? value : value.toLowerCase(), negate });
    } else {
      // Not a known field: search for the whole word as typed.
      terms.push({ kind: 'text', value: word.toLowerCase(), negate });
    }
  }
  return { source, terms, errors };
}

/** What a filter can see of a checkpoint row. */
export interface Filterable {
  uid: string;
  rv: string;
  /** `namespace/name` of its ConfigMap, when known. */
  configMap: string | null;
  assigned: boolean;
  lkg: boolean;
  boot: boolean;
  marked: boolean;
  /** Worst verify finding; undefined while not verified yet. */
  verify: 'ok' | 'warning' | 'error' | undefined;
}

function test(t: Term, r: Filterable): boolean {
  switch (t.kind) {
    case 'text':
      return `${r.uid}/${r.rv}`.toLowerCase().includes(t.value) || (r.configMap ?? '').toLowerCase().includes(t.value);
    case 'uid':
      return r.uid.toLowerCase().startsWith(t.value);
    case 'rv':
      return r.rv.includes(t.value);
    case 'name':
      return (r.configMap ?? '').toLowerCase().includes(t.value);
    case 'is':
      switch (t.value) {
        case 'error':
          return r.verify === 'error';
        case 'warning':
          return r.verify === 'warning';
        case 'ok':
          return r.verify === 'ok';
        case 'assigned':
          return r.assigned;
        case 'lkg':
          return r.lkg;
        case 'boot':
          return r.boot;
        case 'marked':
          return r.marked;
      }
  }
}

export function matches(f: Filter, r: Filterable): boolean {
  for (const t of f.terms) if (test(t, r) === t.negate) return false;
  return true;
}
