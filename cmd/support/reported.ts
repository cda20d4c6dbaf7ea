// How both entry points (cmd/main.ts, cmd/status-main.ts) end a command line: an error becomes
// a message and the exit code it carries (report-error.ts, loaded only when something failed).

export async function runReported(argv: readonly string[], run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (err) {
    const { reportError } = await import('./report-error.js');
    process.exitCode = reportError(err, argv);
  }
}
