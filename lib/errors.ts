// Every error the library throws on purpose. Each carries a string code, the process
// exit code DESIGN.md assigns to it, and a one-line hint for the operator. cmd/main.ts
// is the only place that turns them into output.

export const EXIT = {
  OK: 0,
  FINDINGS: 1,
  USAGE: 2,
  ENV: 3,
  REFUSED: 4,
  INTERNAL: 5,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export class CkptError extends Error {
  readonly code: string;
  readonly exitCode: ExitCode;
  readonly hint: string | null;
  constructor(code: string, exitCode: ExitCode, message: string, hint: string | null = null) {
    super(message);
    this.name = new.target.name;
    this.code = code;
    this.exitCode = exitCode;
    this.hint = hint;
  }
}

/** Bad arguments, unknown or ambiguous refs: exit 2. */
export class UsageError extends CkptError {
  constructor(message: string, hint: string | null = null, code = 'USAGE') {
    super(code, EXIT.USAGE, message, hint);
  }
}

/** The environment is not as needed: store not found, unreadable input: exit 3. */
export class EnvError extends CkptError {
  constructor(message: string, hint: string | null = null, code = 'ENVIRONMENT') {
    super(code, EXIT.ENV, message, hint);
  }
}

/** Refused for safety (running kubelet, failing target, lock held): exit 4. */
export class RefusedError extends CkptError {
  constructor(message: string, hint: string | null = null, code = 'REFUSED') {
    super(code, EXIT.REFUSED, message, hint);
  }
}

/** A bug in kubelet-ckpt: exit 5. */
export class InternalError extends CkptError {
  constructor(message: string, hint: string | null = null, code = 'INTERNAL') {
    super(code, EXIT.INTERNAL, message, hint);
  }
}

/** Turn anything thrown into a CkptError; unknown errors are bugs (exit 5). */
export function asCkptError(err: unknown): CkptError {
  if (err instanceof CkptError) return err;
  const e = err instanceof Error ? err : new Error(String(err));
  const wrapped = new InternalError(`internal error: ${e.message}`, 'this is a bug in kubelet-ckpt; run with -v for the stack trace and report it');
  wrapped.stack = e.stack;
  return wrapped;
}

/** A short, stable description of a Node fs error (`EACCES`, `ENOENT` …) for messages. */
export function fsReason(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  switch (e?.code) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'ENOENT':
      return 'no such file or directory';
    case 'ENOTDIR':
      return 'not a directory';
    case 'EISDIR':
      return 'is a directory';
    case 'ELOOP':
      return 'is a symbolic link';
    case 'EIO':
      return 'input/output error';
    case 'EROFS':
      return 'read-only file system';
    case 'ENOSPC':
      return 'no space left on device';
    case 'ECHANGED':
      return e.message;
    default:
      return e?.code ? `${e.code}${e.message ? `: ${e.message}` : ''}` : String(e?.message ?? e);
  }
}
