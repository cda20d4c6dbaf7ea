// Node built-ins that are costly to load, required on first use instead of at import.
// Measured on `status`: `node:crypto` initialises OpenSSL and reads the CA store (~15% of
// its instructions), `node:child_process` pulls in net and dgram; status needs neither. The
// journal's sources need zlib, streams and timers only for some inputs (a plain file needs
// none), and node:v8 alone is ~8 M instructions to load.

// process.getBuiltinModule, not createRequire: node:module would load the ESM loader too.
function lazy<T>(id: string): () => T {
  let m: T | undefined;
  return () => (m ??= process.getBuiltinModule(id) as T);
}

export const crypto = lazy<typeof import('node:crypto')>('node:crypto');
export const childProcess = lazy<typeof import('node:child_process')>('node:child_process');
export const workerThreads = lazy<typeof import('node:worker_threads')>('node:worker_threads');
/** node:os: only verify/ls on large stores ask it (how many cores). */
export const os = lazy<typeof import('node:os')>('node:os');
export const zlib = lazy<typeof import('node:zlib')>('node:zlib');
export const stream = lazy<typeof import('node:stream')>('node:stream');
export const timersPromises = lazy<typeof import('node:timers/promises')>('node:timers/promises');
export const v8 = lazy<typeof import('node:v8')>('node:v8');

/** Lower-case hex SHA-256 of some bytes. */
export function sha256Hex(data: Uint8Array | string): string {
  // The one-shot form: no Hash object per call (ls hashes every file of the store).
  return crypto().hash('sha256', data, 'hex');
}
