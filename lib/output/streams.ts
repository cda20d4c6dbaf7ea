// Output streams and the colour decision, passed in (never global) so tests capture them.

export interface Sink {
  write(chunk: string | Uint8Array): unknown;
}

export interface Streams {
  stdout: Sink;
  stderr: Sink;
  /** stdout is a terminal (progress lines, prompts, pagination decisions). */
  isTTY: boolean;
  /** Colour allowed: a TTY, no NO_COLOR, no --no-color. */
  color: boolean;
  /** Terminal width for text layout (80 when unknown). */
  width: number;
}

export interface ColorEnv {
  isTTY: boolean;
  noColorFlag: boolean;
  env: Record<string, string | undefined>;
}

/** NO_COLOR (any non-empty value), --no-color and a non-TTY stdout all turn colour off. */
export function colorEnabled(c: ColorEnv): boolean {
  if (c.noColorFlag) return false;
  if (c.env.NO_COLOR !== undefined && c.env.NO_COLOR !== '') return false;
  if (c.env.TERM === 'dumb') return false;
  return c.isTTY;
}

export interface Palette {
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  cyan(s: string): string;
  bold(s: string): string;
  dim(s: string): string;
}

const sgr = (open: number, close: number) => (s: string) => `\u001b[${open}m${s}\u001b[${close}m`;
const plain = (s: string) => s;

export function palette(color: boolean): Palette {
  if (!color) return { red: plain, green: plain, yellow: plain, cyan: plain, bold: plain, dim: plain };
  return { red: sgr(31, 39), green: sgr(32, 39), yellow: sgr(33, 39), cyan: sgr(36, 39), bold: sgr(1, 22), dim: sgr(2, 22) };
}
