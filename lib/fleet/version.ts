// The tool's own version, stamped into every NodeReport (kept equal to package.json by a test).
export const TOOL_VERSION = '0.1.0';
