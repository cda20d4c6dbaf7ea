// A checker for the subset of JSON Schema (2020-12) that schema/node-report.json uses:
// type (with null), const, enum, required, properties, items, $ref to $defs, oneOf, pattern,
// minimum. Test-only; returns every violation with its JSON path.

type S = Record<string, unknown>;

function typeOk(t: string, v: unknown): boolean {
  switch (t) {
    case 'null':
      return v === null;
    case 'object':
      return v !== null && typeof v === 'object' && !Array.isArray(v);
    case 'array':
      return Array.isArray(v);
    case 'integer':
      return Number.isInteger(v);
    case 'number':
      return typeof v === 'number';
    default:
      return typeof v === t;
  }
}

export function check(schema: S, value: unknown, root: S = schema, at = '$'): string[] {
  if (typeof schema.$ref === 'string') return check(root.$defs ? ((root.$defs as S)[schema.$ref.replace('#/$defs/', '')] as S) : {}, value, root, at);
  const errs: string[] = [];
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
    if (!types.some((t) => typeOk(t, value))) return [`${at}: ${JSON.stringify(value)} is not ${types.join('|')}`];
  }
  if ('const' in schema && schema.const !== value) errs.push(`${at}: not ${JSON.stringify(schema.const)}`);
  if (schema.enum && !(schema.enum as unknown[]).includes(value)) errs.push(`${at}: ${JSON.stringify(value)} not in ${JSON.stringify(schema.enum)}`);
  if (schema.oneOf) {
    const ok = (schema.oneOf as S[]).filter((s) => check(s, value, root, at).length === 0).length;
    if (ok !== 1) errs.push(`${at}: matches ${ok} of oneOf`);
  }
  if (typeof value === 'string' && typeof schema.pattern === 'string' && !new RegExp(schema.pattern).test(value)) errs.push(`${at}: does not match ${schema.pattern}`);
  if (typeof value === 'number' && typeof schema.minimum === 'number' && value < schema.minimum) errs.push(`${at}: below ${schema.minimum}`);
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const o = value as S;
    for (const k of (schema.required as string[] | undefined) ?? []) if (!(k in o)) errs.push(`${at}.${k}: required`);
    for (const [k, sub] of Object.entries((schema.properties as S | undefined) ?? {})) if (k in o) errs.push(...check(sub as S, o[k], root, `${at}.${k}`));
  }
  if (Array.isArray(value) && schema.items) value.forEach((v, i) => errs.push(...check(schema.items as S, v, root, `${at}[${i}]`)));
  return errs;
}
