// Path fields of KubeletConfiguration (KubeletConfigurationPathRefs): the kubelet's loader
// joins every non-empty relative value onto the directory of the file it loaded, which
// for a checkpoint is <dynamic-config-dir>/store/checkpoints/<uid>/<rv>/ — almost never
// what the author meant, so each one is worth a warning. Cgroup names are not paths.

import path from 'node:path';
import { deepClone, getAt, setAt, type ConfigObject } from './objpath.js';
import { inRange, type KubeletVersion } from './version.js';

export interface PathField {
  path: string;
  since?: KubeletVersion;
}

/** Path fields per helpers.go (1.20–1.23 all have these; podLogsDir only arrives in 1.29). */
export const PATH_FIELDS: readonly PathField[] = [
  { path: 'staticPodPath' },
  { path: 'authentication.x509.clientCAFile' },
  { path: 'tlsCertFile' },
  { path: 'tlsPrivateKeyFile' },
  { path: 'resolvConf' },
  { path: 'volumePluginDir' },
];

/** Made once per release: verify asks for every payload. */
const fieldsByVersion = new Map<KubeletVersion, readonly string[]>();
export function pathFieldsFor(version: KubeletVersion): readonly string[] {
  let f = fieldsByVersion.get(version);
  if (!f) fieldsByVersion.set(version, (f = PATH_FIELDS.filter((x) => inRange(version, x.since)).map((x) => x.path)));
  return f;
}

export interface RelativePath {
  /** v1beta1 JSON path of the field. */
  field: string;
  /** The value as written. */
  value: string;
  /** What the kubelet turns it into (filepath.Join(dir, value)). */
  resolved: string;
}

/** Go's filepath.Join(dir, value): joined and cleaned. */
function goJoin(dir: string, value: string): string {
  return path.posix.normalize(path.posix.join(dir, value)).replace(/\/$/, '') || '/';
}

/** The relative path fields of `config`, resolved against the directory of `filePath`. */
export function relativePathFields(config: ConfigObject, filePath: string, version: KubeletVersion): RelativePath[] {
  // Nearly every payload has none: the file's directory is worked out only for one that has.
  const out: RelativePath[] = [];
  for (const field of pathFieldsFor(version)) {
    const v = getAt(config, field);
    if (typeof v !== 'string' || v === '' || path.posix.isAbsolute(v)) continue;
    out.push({ field, value: v, resolved: goJoin(path.posix.dirname(filePath), v) });
  }
  return out;
}

/** A config with every relative path field made absolute: a new object unless `inPlace`. */
export function resolveRelativePaths(config: ConfigObject, filePath: string, version: KubeletVersion, inPlace = false): ConfigObject {
  return applyRelativePaths(config, relativePathFields(config, filePath, version), inPlace);
}

/** resolveRelativePaths with the fields relativePathFields already found in `config`. */
export function applyRelativePaths(config: ConfigObject, rels: readonly RelativePath[], inPlace = false): ConfigObject {
  const out = inPlace ? config : deepClone(config);
  for (const rel of rels) setAt(out, rel.field, rel.resolved);
  return out;
}
