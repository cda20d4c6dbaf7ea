// `fleet manifest npd`: a node-problem-detector custom-plugin-monitor config that runs
// `check --npd`. NPD lets one permanent rule own a condition without flapping (a second
// permanent rule on the same condition would reset it to False whenever its own problem is
// absent), so the condition KubeletDynamicConfigProblem has one permanent rule, and each
// problem — fell back, will not start, crash loop — also has a temporary rule whose
// reason names it (a Warning event with that reason when it appears).

import type { Problem } from '../check.js';
import type { ManifestOptions } from './options.js';

export const NPD_CONDITION = 'KubeletDynamicConfigProblem';
export const NPD_OK_REASON = 'KubeletDynamicConfigOK';
export const NPD_PROBLEM_REASON = 'KubeletDynamicConfigProblem';
export const NPD_REASONS: Record<Problem, string> = {
  'fell-back': 'KubeletConfigFellBack',
  'will-not-start': 'KubeletConfigWillNotStart',
  'crash-loop': 'KubeletCrashLoop',
};

export interface NpdRule {
  type: 'permanent' | 'temporary';
  condition?: string;
  reason: string;
  path: string;
  args: string[];
  timeout: string;
}

export interface NpdConfig {
  plugin: 'custom';
  pluginConfig: { invoke_interval: string; timeout: string; max_output_length: number; concurrency: number; enable_message_change_based_condition_update: boolean };
  source: string;
  metricsReporting: boolean;
  conditions: { type: string; reason: string; message: string }[];
  rules: NpdRule[];
}

/** path + args that run `kubelet-ckpt [--root R] check --npd …` without a shell. */
function exec(o: ManifestOptions, extra: string[]): { path: string; args: string[] } {
  const tool = [...(o.hostRoot && o.hostRoot !== '/' ? ['--root', o.hostRoot] : []), 'check', '--npd', ...extra];
  return o.node ? { path: o.node, args: [o.bundle, ...tool] } : { path: o.bundle, args: tool };
}

export function npdConfig(o: ManifestOptions): NpdConfig {
  const timeout = o.timeout;
  const rules: NpdRule[] = [{ type: 'permanent', condition: NPD_CONDITION, reason: NPD_PROBLEM_REASON, ...exec(o, []), timeout }];
  for (const p of ['fell-back', 'will-not-start', 'crash-loop'] as const) rules.push({ type: 'temporary', reason: NPD_REASONS[p], ...exec(o, ['--problem', p]), timeout });
  return {
    plugin: 'custom',
    pluginConfig: { invoke_interval: o.interval, timeout, max_output_length: 80, concurrency: 2, enable_message_change_based_condition_update: true },
    source: 'kubelet-ckpt-custom-plugin-monitor',
    metricsReporting: true,
    conditions: [{ type: NPD_CONDITION, reason: NPD_OK_REASON, message: 'the kubelet starts on the config it was given' }],
    rules,
  };
}
