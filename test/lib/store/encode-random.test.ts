// shared/vectors/encode-random.json: 1000 sources written by the kubelet v1.23.0's own store
// code (exact bytes of meta/assigned, or its refusal), and what reading them back gives.
// encodeMeta must write the same bytes and refuse the same sources; decodeMeta (the go-yaml
// v2 reader) must read every written file back as the kubelet reads it.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { encodeMeta, MetaEncodeError } from '../../../lib/store/encode.js';
import { decodeMeta } from '../../../lib/store/meta.js';
import type { ConfigMapSource } from '../../../lib/store/types.js';
import { sharedDir, vectorsMissing } from '../../helpers.js';

interface EncodeVector {
  name: string;
  source: ConfigMapSource;
  ok: boolean;
  error: string | null;
  bytesB64?: string;
  roundTrip?: boolean;
  readBack?: ConfigMapSource;
  reencodedB64?: string;
}

const file = path.join(sharedDir, 'vectors', 'encode-random.json');
if (!fs.existsSync(file)) {
  vectorsMissing(t, file);
} else {
  const vectors = JSON.parse(fs.readFileSync(file, 'utf8')) as EncodeVector[];
  const bytes: string[] = [];
  const refusals: string[] = [];
  const readBack: string[] = [];
  const texts: string[] = [];
  for (const v of vectors) {
    let ours: Buffer | null = null;
    let err: string | null = null;
    try {
      ours = encodeMeta(v.source);
    } catch (e) {
      if (!(e instanceof MetaEncodeError)) throw e;
      err = e.message;
    }
    if (!v.ok) {
      if (ours) refusals.push(`${v.name}: the kubelet refuses (${v.error}), we write ${JSON.stringify(ours.toString())}`);
      // Our message wraps the kubelet's ("… (yaml: control characters are not allowed)").
      else if (!err!.includes(v.error!.replace(/^yaml: /, ''))) texts.push(`${v.name}: ours ${JSON.stringify(err)} kubelet ${JSON.stringify(v.error)}`);
      continue;
    }
    const want = Buffer.from(v.bytesB64!, 'base64');
    if (!ours) refusals.push(`${v.name}: the kubelet writes it, we refuse: ${err}`);
    else if (!ours.equals(want)) bytes.push(`${v.name}: ours ${JSON.stringify(ours.toString())} kubelet ${JSON.stringify(want.toString())}`);
    const d = decodeMeta(want);
    const expected = v.roundTrip ? v.source : v.readBack!;
    if (d.state !== 'source') readBack.push(`${v.name}: kubelet reads back ${JSON.stringify(expected)}, we get ${JSON.stringify(d)}`);
    else if (JSON.stringify(sorted(d.source)) !== JSON.stringify(sorted(expected))) readBack.push(`${v.name}: kubelet reads back ${JSON.stringify(sorted(expected))}, we get ${JSON.stringify(sorted(d.source))}`);
  }
  t.same(bytes, [], `meta bytes identical to the kubelet's on all ${vectors.filter((v) => v.ok).length} written sources`);
  t.same(refusals, [], 'the same sources refused');
  if (process.env.DUMP) fs.writeFileSync(process.env.DUMP, readBack.join('\n'));
  t.same(readBack, [], 'every written meta file reads back as the kubelet reads it');
  t.comment(`refusal text differences: ${texts.length}`);
  t.same(texts, [], 'refusals carry the kubelet\'s error');
}

function sorted(s: ConfigMapSource): Record<string, string> {
  return Object.fromEntries(Object.entries(s).sort(([a], [b]) => a.localeCompare(b)));
}
