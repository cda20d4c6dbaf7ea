// The kubelet's verdict on one KubeletConfiguration file: load (decode, defaults,
// relative paths), re-apply command-line flags, validate. A seam so next-boot
// prediction and verify stay pure functions and tests can pass a stub.

import type { AfterBootstrap } from '../config/after-bootstrap.js';

export type JudgeStage = 'ok' | 'load-error' | 'validate-error' | 'internal-error';

export interface Judgement {
  stage: JudgeStage;
  /** The kubelet's error text for the stage, null when ok. */
  error: string | null;
  /**
   * Each failing validation rule: its v1beta1 JSON path(s) and the kubelet's own message;
   * empty unless validate-error.
   */
  failures?: { field: string; fields?: string[]; message: string }[];
  /** Unknown or duplicate fields: the kubelet decodes leniently and only warns. */
  strict?: { path: string; message: string }[];
  /** Path fields with relative values (resolved against the checkpoint directory). */
  relativePaths?: { field: string; value: string }[];
  /** Command-line flags that override a field the payload sets. */
  overrides?: { flag: string; path: string; value: unknown; payloadValue: unknown }[];
  /**
   * ok, but the kubelet exits once it runs this config (its gates turn off the DynamicKubeletConfig
   * gate --dynamic-config-dir needs, or a field it reads only then refuses): the kubelet's error,
   * and why in words (`its featureGates turn DynamicKubeletConfig off`).
   */
  exitsOnceAdopted?: AfterBootstrap;
}

export type ConfigJudge = (bytes: Buffer, filePath: string) => Judgement;

/**
 * Whether a verdict on `bytes` holds for the same bytes in another file. A verdict is a
 * function of the bytes and the judge's fixed context (kubelet version, command line, local
 * gates); the file's path reaches only the empty-file message and the directory that relative
 * path fields are resolved against. So never for an empty payload, nor for a verdict that
 * lists relative paths.
 */
export function verdictTravels(bytes: Uint8Array, v: Judgement): boolean {
  return bytes.byteLength > 0 && !v.relativePaths?.length;
}

/** `Node.Status.Config.Error` for a failed assigned config (reference/kubelet-behaviour.md). */
export function statusErrorFor(stage: JudgeStage): string | null {
  switch (stage) {
    case 'load-error':
      return 'failed to load config, see Kubelet log for details';
    case 'validate-error':
      return 'failed to validate config, see Kubelet log for details';
    case 'internal-error':
      return 'internal failure, see Kubelet log for details';
    default:
      return null;
  }
}
