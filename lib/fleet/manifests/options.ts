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

