// Migration readiness for the NodeReport: upgrade-check's verdict (lib/migrate) on this node's
// kubelet becoming 1.24, the first release without Dynamic Kubelet Configuration. A node is
// ready when that kubelet starts and runs the config it runs now; otherwise the report says
// why: the kubelet's own exit message, or the fields that would silently revert.

import { asCkptError } from '../errors.js';
import { upgradeCheck } from '../migrate/upgrade.js';
import type { Session } from '../session.js';

export const MIGRATION_TARGET = '1.24';

export interface MigrationReadiness {
  /** The release judged. */
  to: string;
  ready: boolean;
  /** The kubelet would exit at start-up (its words in exitMessage). */
  breaks: boolean;
  exitMessage: string | null;
  /**
   * Fields of the running config that would change without a word: with the upgrade itself,
   * or (when the flag alone stops it) once the flag is dropped as provisioners do.
   */
  revertedFields: string[];
  /** Why readiness could not be judged (then ready is false). */
  error: string | null;
  /** upgrade-check's assumedFlags: the kubelet's command line was not found, these were assumed. */
  assumedFlags: string[] | null;
}

/** upgrade-check's verdict for 1.24; null when there is no store to judge. */
export function migrationReadiness(s: Session | null, root: string): MigrationReadiness | null {
  if (!s) return null;
  try {
    const u = upgradeCheck(s, { to: MIGRATION_TARGET, root });
    const reverted = (u.changes.length ? u.changes : (u.withoutFlag?.changes ?? [])).map((c) => c.path);
    const dropFails = u.withoutFlag !== null && !u.withoutFlag.starts;
    // changesConfig also covers "nothing runs now to compare with": not ready on a guess.
    const ready = !u.breaks && !u.changesConfig && reverted.length === 0 && !dropFails;
    return { to: u.to, ready, breaks: u.breaks, exitMessage: u.after.exitMessage, revertedFields: reverted, error: null, assumedFlags: u.assumedFlags };
  } catch (err) {
    return { to: MIGRATION_TARGET, ready: false, breaks: false, exitMessage: null, revertedFields: [], error: asCkptError(err).message, assumedFlags: null };
  }
}
