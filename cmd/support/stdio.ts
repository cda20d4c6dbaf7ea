// Cheap standard streams for commands. process.stdout and process.stderr are built when first
// touched, and for a pipe that loads net and the stream machinery (about 10 M instructions
// each, several per cent of a `status`). Our commands write whole results synchronously, so
// for anything that is not a terminal write(2) on the descriptor does the same job.

import fs from 'node:fs';
import type { Sink } from '../../lib/output/streams.js';

const MEMORY_DEVICES = 1; // Linux major number of /dev/null, /dev/zero, /dev/full

/** fd is a terminal. Only a character device can be, and not /dev/null: those need no tty module. */
export function isTerminal(fd: number): boolean {
  let st: fs.Stats;
  try {
    st = fs.fstatSync(fd);
  } catch {
    return false;
  }
  if (!st.isCharacterDevice()) return false;
  if (process.platform === 'linux' && ((st.rdev >>> 8) & 0xfff) === MEMORY_DEVICES) return false;
  return process.getBuiltinModule('node:tty').isatty(fd);
}

/**
 * Writes straight to fd, whole chunks, in order; a non-blocking descriptor that is full is
 * waited on. A reader that went away (EPIPE, as with `| head`) ends the process quietly, as
 * SIGPIPE ends other tools (status --watch would otherwise run on with no one reading).
 */
export function fdSink(fd: number): Sink {
  // stderr's reader gone (`2>&1 | head -1`) only silences what is left: the exit code stays the
  // command's (found by review: an error's exit 3 became 1).
  let gone = false;
  return {
    write(chunk: string | Uint8Array): boolean {
      if (gone) return true;
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      for (let off = 0; off < buf.length; ) {
        try {
          off += fs.writeSync(fd, buf, off);
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code;
          if (code === 'EPIPE' && fd === 2) {
            gone = true;
            return true;
          }
          if (code === 'EPIPE') process.exit();
          if (code !== 'EAGAIN') throw err;
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2);
        }
      }
      return true;
    },
  };
}

/** process.stdout on a terminal, else an fdSink. */
export function stdoutSink(): { sink: Sink; isTTY: boolean; columns: number | undefined } {
  const isTTY = isTerminal(1);
  return isTTY ? { sink: process.stdout, isTTY, columns: process.stdout.columns } : { sink: fdSink(1), isTTY, columns: undefined };
}

/** stderr, decided on the first write (most runs write nothing there). */
export function lazyStderr(): Sink {
  let sink: Sink | undefined;
  return { write: (chunk) => (sink ??= isTerminal(2) ? process.stderr : fdSink(2)).write(chunk) };
}
