// Migration readiness for the NodeReport: whether the node still starts once its kubelet
// leaves Dynamic Kubelet Configuration (upgrade-check's verdict). This build carries no
// upgrade-check (lib/migrate), so the field is null; once lib/migrate exists this is the one
// place that fills it, and schema/node-report.json already allows an object here.

import type { Session } from '../session.js';

export function migrationReadiness(_s: Session | null): Record<string, unknown> | null {
  return null;
}
