// The `show` report: the bytes of a checkpoint payload, a meta file, the local config
// or a file, with a decoded value for pretty printing.

import { sha256Hex } from '../builtins.js';
import { EnvError, UsageError, fsReason } from '../errors.js';
import { readFileCapped } from './safepath.js';
import { PAYLOAD_CAP, entryWords, type PayloadReader, type Snapshot } from './snapshot.js';
import { resolveRef, type Resolved, type ResolveOptions } from './refs.js';

export interface ShowReport {
  ref: string;
  /** What the ref named: a checkpoint, a meta file, the local config or a file (`kind` is the document's). */
  refKind: Resolved['kind'];
  uid: string | null;
  resourceVersion: string | null;
  key: string | null;
  /** Store-relative for store files, absolute otherwise. */
  path: string;
  size: number;
  sha256: string;
  /** The bytes (not part of JSON output; `text` is). */
  bytes: Buffer;
  /** UTF-8 text, or null when the bytes are not valid UTF-8. */
  text: string | null;
}

function utf8OrNull(b: Buffer): string | null {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(b);
  } catch {
    return null;
  }
}

function readOutside(p: string, what: string): Buffer {
  try {
    const r = readFileCapped(p, PAYLOAD_CAP);
    if (r.truncated) throw new EnvError(`${what} ${p} is larger than 1 MiB; refusing to read it whole`, null, 'TOO_LARGE');
    return r.bytes;
  } catch (err) {
    if (err instanceof EnvError) throw err;
    throw new EnvError(`cannot read ${what} ${p}: ${fsReason(err)}`, null, 'UNREADABLE_INPUT');
  }
}

export function refBytes(snap: Snapshot, reader: PayloadReader, r: Resolved): { bytes: Buffer; path: string; key: string | null } {
  switch (r.kind) {
    case 'meta': {
      const m = snap.meta[r.name];
      if (m.entry.kind === 'missing') throw new EnvError(`meta/${r.name} does not exist (the kubelet would create it empty)`, null, 'META_MISSING');
      if (!m.content?.ok) throw new EnvError(`cannot read meta/${r.name}: ${m.content?.error ?? 'not readable'}`, null, 'META_UNREADABLE');
      // Only its first MiB was read: printing that as the file would be a lie.
      if (m.content.truncated) throw new EnvError(`meta/${r.name} is larger than 1 MiB (a meta file is a few hundred bytes); refusing to read it whole`, 'inspect it with other tools; `kubelet-ckpt verify` reports it', 'TOO_LARGE');
      return { bytes: m.content.bytes, path: m.entry.rel, key: null };
    }
    case 'local':
      if (!r.path) {
        throw new EnvError(
          `${r.via ? `meta/${r.via} is empty, so it means the local config, and ` : ''}no local --config file is known`,
          'give the kubelet\'s --config file with --kubelet-config',
          'NO_LOCAL_CONFIG',
        );
      }
      return { bytes: readOutside(r.path, 'local config'), path: r.path, key: null };
    case 'file':
      return { bytes: readOutside(r.path, 'file'), path: r.path, key: null };
    case 'checkpoint': {
      const cp = r.checkpoint;
      // A resourceVersion entry that is no directory has no files to read, and is not "empty"
      // (found by review: a link to /etc said "holds no files", a usage error).
      if (cp.entry.kind !== 'dir') throw new EnvError(`cannot read checkpoint ${cp.rel}: it is ${entryWords(cp.entry)}`, 'run `kubelet-ckpt verify` for details', 'CHECKPOINT_UNREADABLE');
      if (!r.key) {
        // An empty checkpoint has no key to choose (found by review: "…named "kubelet": " and nothing after).
        throw new UsageError(
          cp.files.length === 0 ? `checkpoint ${cp.uid}/${cp.rv} holds no files: there is nothing to read` : `checkpoint ${cp.uid}/${cp.rv} has ${cp.files.length} files and none is named "kubelet": ${cp.files.map((f) => JSON.stringify(f.name)).join(', ')}`,
          cp.files.length === 0 ? null : 'choose one with --key KEY',
          'KEY_REQUIRED',
        );
      }
      const c = reader.read(cp, r.key);
      if (!c.ok) {
        // What to do next (found by review: no hint): read one of the files it has, or the next step for its meta file.
        const keyHint = cp.files.length ? `read one it has with --key ${/^[\w.-]+$/.test(cp.files[0]!.name) ? cp.files[0]!.name : `'${cp.files[0]!.name.replace(/'/g, `'\\''`)}'`}${r.via ? `; the kubelet cannot load meta/${r.via}'s config: \`kubelet-ckpt verify\` says what to do` : ''}` : '`kubelet-ckpt verify` reports it';
        if (c.code === 'missing') throw new UsageError(`checkpoint ${cp.uid}/${cp.rv} has no file "${r.key}" (it has ${cp.files.map((f) => JSON.stringify(f.name)).join(', ') || 'none'})`, keyHint, 'KEY_MISSING');
        throw new EnvError(`cannot read ${cp.rel}/${r.key}: ${c.error}`, null, 'UNREADABLE_INPUT');
      }
      if (c.truncated) throw new EnvError(`${cp.rel}/${r.key} is larger than 1 MiB (the ConfigMap limit); refusing to read it whole`, 'inspect it with other tools; `kubelet-ckpt verify` reports it', 'TOO_LARGE');
      return { bytes: c.bytes, path: `${cp.rel}/${r.key}`, key: r.key };
    }
  }
}

export function buildShow(snap: Snapshot, reader: PayloadReader, ref: string, opts: ResolveOptions): ShowReport {
  const r = resolveRef(snap, ref, opts);
  const b = refBytes(snap, reader, r);
  return {
    ref,
    refKind: r.kind,
    uid: r.kind === 'checkpoint' ? r.checkpoint.uid : null,
    resourceVersion: r.kind === 'checkpoint' ? r.checkpoint.rv : null,
    key: b.key,
    path: b.path,
    size: b.bytes.length,
    sha256: sha256Hex(b.bytes),
    bytes: b.bytes,
    text: utf8OrNull(b.bytes),
  };
}

