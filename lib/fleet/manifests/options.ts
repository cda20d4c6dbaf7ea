// What every `fleet manifest` needs to know about where the tool and the node's root are.

export interface ManifestOptions {
  /** Path of the single-file bundle where the engine runs it. */
  bundle: string;
  /** Interpreter to run the bundle with; null runs the bundle itself (its #! line finds node). */
  node: string | null;
  /** Where the node's / is mounted where the tool runs ('/' when it runs on the host). */
  hostRoot: string;
  /** Container image holding node and the bundle (Job, DaemonSet). */
  image: string;
  namespace: string;
  /** NPD: how often and how long (Go durations). */
  interval: string;
  timeout: string;
}

/** Go's time.ParseDuration grammar (`300ms`, `1m30s`, `5s`), for option checks. */
export const GO_DURATION = /^[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$|^[-+]?0$/;

const UNIT_NS: Record<string, number> = { ns: 1, us: 1e3, µs: 1e3, μs: 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 };

/** A Go duration (GO_DURATION) in whole nanoseconds, as time.ParseDuration truncates it (`0.5ns` is 0). */
export function goDurationNs(s: string): number {
  let ns = 0;
  for (const m of s.matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g)) ns += Number(m[1]) * UNIT_NS[m[2]!]!;
  return s.startsWith('-') ? -Math.trunc(ns) : Math.trunc(ns);
}
