// Node built-ins that are costly to load, required on first use instead of at import.
// Measured on `status`: `node:crypto` initialises OpenSSL and reads the CA store (~15% of
// its instructions), `node:child_process` pulls in net and dgram; status needs neither.

// process.getBuiltinModule, not createRequire: node:module would load the ESM loader too.
const load = (id: string): unknown => process.getBuiltinModule(id);
let cryptoModule: typeof import('node:crypto') | undefined;
let childProcessModule: typeof import('node:child_process') | undefined;
let workerThreadsModule: typeof import('node:worker_threads') | undefined;
let osModule: typeof import('node:os') | undefined;

export function crypto(): typeof import('node:crypto') {
  return (cryptoModule ??= load('node:crypto') as typeof import('node:crypto'));
}

export function childProcess(): typeof import('node:child_process') {
  return (childProcessModule ??= load('node:child_process') as typeof import('node:child_process'));
}

export function workerThreads(): typeof import('node:worker_threads') {
  return (workerThreadsModule ??= load('node:worker_threads') as typeof import('node:worker_threads'));
}

/** node:os: only verify/ls on large stores ask it (how many cores). */
export function os(): typeof import('node:os') {
  return (osModule ??= load('node:os') as typeof import('node:os'));
}

/** Lower-case hex SHA-256 of some bytes. */
export function sha256Hex(data: Uint8Array | string): string {
  // The one-shot form: no Hash object per call (ls hashes every file of the store).
  return crypto().hash('sha256', data, 'hex');
}
