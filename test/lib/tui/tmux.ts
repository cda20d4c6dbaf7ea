// Drive the built CLI in a real terminal: tmux on a socket of its own, keys in, screen out.
// Nothing waits on time alone: every step polls the screen until what it expects shows up.

import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import { cleanEnv, cliPath } from '../../helpers.js';

export const hasTmux = spawnSync('tmux', ['-V']).status === 0;

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export interface StartOptions {
  cols?: number;
  rows?: number;
  env?: Record<string, string | undefined>;
  /** The program (default: node and the built CLI). */
  argv0?: string[];
}

export class Tmux {
  readonly socket = `kckpt-tui-${process.pid}-${crypto.randomBytes(4).toString('hex')}`;
  last = '';
  private env: NodeJS.ProcessEnv = {};

  /** Start `kubelet-ckpt ARGS` in an 80x24 terminal; after it exits the pane shows `[exit N]`. */
  start(args: string[], o: StartOptions = {}): this {
    const argv = [...(o.argv0 ?? [process.execPath, cliPath]), ...args];
    const cmd = `${argv.map(q).join(' ')}; echo "[exit $?]"; sleep 600`;
    this.env = { ...cleanEnv(), NO_COLOR: '1', ...o.env } as NodeJS.ProcessEnv;
    for (const [k, v] of Object.entries(this.env)) if (v === undefined) delete this.env[k];
    this.tmux(['-f', '/dev/null', 'new-session', '-d', '-s', 'k', '-x', String(o.cols ?? 80), '-y', String(o.rows ?? 24), cmd]);
    return this;
  }

  tmux(args: string[]): string {
    const r = spawnSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8', env: this.env, timeout: 10_000 });
    if (r.status !== 0) throw new Error(`tmux ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  }

  /** The screen as text (`escapes`: with colours and attributes). */
  capture(escapes = false): string {
    this.last = this.tmux(['capture-pane', '-p', ...(escapes ? ['-e'] : []), '-t', 'k']);
    return this.last;
  }

  /** Send keys one `send-keys` at a time (an Escape alone is read as Escape, not as Alt-…). */
  send(...keys: string[]): void {
    for (const k of keys) this.tmux(['send-keys', '-t', 'k', k]);
  }

  /** Type text literally. */
  type(text: string): void {
    this.tmux(['send-keys', '-t', 'k', '-l', text]);
  }

  resize(cols: number, rows: number): void {
    this.tmux(['resize-window', '-t', 'k', '-x', String(cols), '-y', String(rows)]);
  }

  /** Poll the screen until `want` matches; throws with the last screen after `timeoutMs`. */
  async waitFor(want: RegExp | string | ((screen: string) => boolean), timeoutMs = 20_000): Promise<string> {
    const test = typeof want === 'function' ? want : (s: string) => (typeof want === 'string' ? s.includes(want) : want.test(s));
    const end = Date.now() + timeoutMs;
    for (;;) {
      const s = this.capture();
      if (test(s)) return s;
      if (Date.now() > end) throw new Error(`timed out waiting for ${String(want)}; the screen:\n${s}`);
      await new Promise((r) => setTimeout(r, 40));
    }
  }

  kill(): void {
    spawnSync('tmux', ['-L', this.socket, 'kill-server'], { env: this.env });
  }
}

/** The right-hand pane (tab content) of an 80-column screen, as words. */
export function paneWords(screen: string, from = 29): string {
  return screen
    .split('\n')
    .slice(4, -2)
    .map((l) => l.slice(from))
    .join(' ')
    .replace(/\s+/g, ' ');
}
