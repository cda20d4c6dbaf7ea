// Shapes of what the kubelet keeps on disk, as kubelet-ckpt models them.

/** The `source.configMap` of a SerializedNodeConfigSource (fields as the kubelet names them). */
export interface ConfigMapSource {
  namespace: string;
  name: string;
  uid: string;
  resourceVersion: string;
  kubeletConfigKey: string;
}

/** A source reference as printed in JSON output (DESIGN.md "JSON output"). */
export interface SourceRef extends ConfigMapSource {
  /** `/api/v1/namespaces/<namespace>/configmaps/<name>` */
  apiPath: string;
}

export type MetaName = 'assigned' | 'last-known-good';
export const META_NAMES: readonly MetaName[] = ['assigned', 'last-known-good'];

export function apiPathOf(src: { namespace: string; name: string }): string {
  return `/api/v1/namespaces/${src.namespace}/configmaps/${src.name}`;
}

export function toSourceRef(src: ConfigMapSource): SourceRef {
  return {
    namespace: src.namespace,
    name: src.name,
    uid: src.uid,
    resourceVersion: src.resourceVersion,
    kubeletConfigKey: src.kubeletConfigKey,
    apiPath: apiPathOf(src),
  };
}
