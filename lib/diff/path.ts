// Field paths as people write them: `systemReserved.cpu`, and a bracketed, quoted key where
// a dot would be ambiguous: `evictionHard["memory.available"]`.

/** Keys that read unambiguously after a dot. Anything else is bracketed and quoted. */
const IDENT = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** JSON string quoting, plus escapes for what JSON leaves raw but a terminal would act on. */
export function quote(s: string): string {
  return escapeJsonRest(JSON.stringify(s));
}

/** JSON text with what JSON.stringify leaves unescaped and a terminal must not see (DEL, C1, bidi controls, LS/PS) as \uNNNN. */
export function escapeJsonRest(json: string): string {
  return json.replace(/[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** One path from its keys; the root (no keys) is the empty string. */
export function formatPath(keys: readonly string[]): string {
  let out = '';
  for (const k of keys) out += keyStep(k, out === '');
  return out;
}

/** One key of a path: `.name` (bare at the start), else `["quoted"]`. */
export function keyStep(k: string, first: boolean): string {
  if (!IDENT.test(k)) return `[${quote(k)}]`;
  return first ? k : `.${k}`;
}
