// Adapter from the kubelet's config pipeline to the next-boot judge seam.
// TEMPORARY minimal implementation: decode checks only; replaced by lib/config/load.ts.

import * as yaml from 'js-yaml';
import type { ConfigJudge, Judgement } from './judge.js';

export interface JudgeOptions {
  version: string;
  argv: readonly string[];
}

function minimal(bytes: Buffer, filePath: string): Judgement {
  if (bytes.length === 0) return { stage: 'load-error', error: `kubelet config file "${filePath}" was empty` };
  const text = bytes.toString('utf8');
  let obj: unknown;
  try {
    obj = yaml.load(text, { json: true });
  } catch (err) {
    return { stage: 'load-error', error: `failed to decode: ${(err as Error).message}` };
  }
  const o = (obj ?? {}) as Record<string, unknown>;
  if (!o.kind) return { stage: 'load-error', error: `failed to decode: Object 'Kind' is missing in '${text}'` };
  if (!o.apiVersion) return { stage: 'load-error', error: `failed to decode: Object 'apiVersion' is missing in '${text}'` };
  return { stage: 'ok', error: null };
}

export function judgeConfig(_opts: JudgeOptions): ConfigJudge {
  return minimal;
}

export function judgeLocalConfig(_opts: JudgeOptions): ConfigJudge {
  return (bytes, file) => {
    const j = minimal(bytes, file);
    return j.stage === 'load-error' ? { stage: j.stage, error: `failed to load Kubelet config file ${file}, error ${j.error}` } : j;
  };
}
