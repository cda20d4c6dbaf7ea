// Verify findings for commands that show a problem count (status).
import type { Finding } from '../lib/integrity/findings.js';
import { verifySession } from '../lib/integrity/run.js';
import type { Session } from '../lib/session.js';

export function problemsOf(s: Session): Finding[] {
  return verifySession(s).findings.filter((f) => f.severity !== 'info');
}
