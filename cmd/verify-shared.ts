// The problems `status` counts: everything verify checks, except that only the payloads
// the meta files name (the ones that decide the next boot) are decoded and validated;
// `verify` validates every checkpoint.
import type { Finding } from '../lib/integrity/findings.js';
import { verifySession } from '../lib/integrity/run.js';
import type { Session } from '../lib/session.js';

export function problemsOf(s: Session): Finding[] {
  return verifySession(s, [], 'referenced').findings.filter((f) => f.severity !== 'info');
}
