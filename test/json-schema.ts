// A validator for the subset of JSON Schema (2020-12) that schema/*.json uses: type, const,
// enum, required, properties, items, anyOf, pattern, minimum and local $ref to $defs.
// Written here rather than adding ajv: the subset is small, and a test-only copy of a
// large validator would check our schemas less plainly than these few lines.

export type Schema = {
  $ref?: string;
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  required?: string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  pattern?: string;
  minimum?: number;
  $defs?: Record<string, Schema>;
};

const KEYWORDS = new Set(['$schema', '$id', 'title', 'description', '$ref', 'type', 'const', 'enum', 'required', 'properties', 'items', 'anyOf', 'pattern', 'minimum', '$defs']);

function typeOf(v: unknown): string[] {
  if (v === null) return ['null'];
  if (Array.isArray(v)) return ['array'];
  if (typeof v === 'number') return Number.isInteger(v) ? ['integer', 'number'] : ['number'];
  return [typeof v];
}

/** Every keyword a schema uses is one this validator knows (so nothing is silently ignored). */
export function unknownKeywords(s: Schema, at = '#'): string[] {
  const out = Object.keys(s).filter((k) => !KEYWORDS.has(k)).map((k) => `${at}/${k}`);
  for (const [k, sub] of Object.entries(s.properties ?? {})) out.push(...unknownKeywords(sub, `${at}/properties/${k}`));
  for (const [k, sub] of Object.entries(s.$defs ?? {})) out.push(...unknownKeywords(sub, `${at}/$defs/${k}`));
  if (s.items) out.push(...unknownKeywords(s.items, `${at}/items`));
  (s.anyOf ?? []).forEach((sub, i) => out.push(...unknownKeywords(sub, `${at}/anyOf/${i}`)));
  return out;
}

/** The errors of `value` against `schema` (empty: valid), each with the JSON path where it is. */
export function validate(value: unknown, schema: Schema, root: Schema = schema, at = '$'): string[] {
  if (schema.$ref) {
    const name = schema.$ref.replace(/^#\/\$defs\//, '');
    const target = root.$defs?.[name];
    if (!target) return [`${at}: unresolved $ref ${schema.$ref}`];
    return validate(value, target, root, at);
  }
  const errs: string[] = [];
  if (schema.type) {
    const want = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!typeOf(value).some((t) => want.includes(t))) return [`${at}: ${JSON.stringify(value)?.slice(0, 60)} is not ${want.join(' or ')}`];
  }
  if ('const' in schema && JSON.stringify(value) !== JSON.stringify(schema.const)) errs.push(`${at}: not ${JSON.stringify(schema.const)}`);
  if (schema.enum && !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))) errs.push(`${at}: ${JSON.stringify(value)} not one of ${JSON.stringify(schema.enum)}`);
  if (schema.pattern && typeof value === 'string' && !new RegExp(schema.pattern, 'u').test(value)) errs.push(`${at}: ${JSON.stringify(value)} does not match ${schema.pattern}`);
  if (schema.minimum !== undefined && typeof value === 'number' && value < schema.minimum) errs.push(`${at}: ${value} < ${schema.minimum}`);
  if (schema.anyOf && !schema.anyOf.some((s) => validate(value, s, root, at).length === 0)) errs.push(`${at}: matches none of anyOf`);
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const o = value as Record<string, unknown>;
    for (const k of schema.required ?? []) if (!(k in o)) errs.push(`${at}: missing ${k}`);
    for (const [k, s] of Object.entries(schema.properties ?? {})) if (k in o) errs.push(...validate(o[k], s, root, `${at}.${k}`));
  }
  if (Array.isArray(value) && schema.items) value.forEach((v, i) => errs.push(...validate(v, schema.items!, root, `${at}[${i}]`)));
  return errs;
}
