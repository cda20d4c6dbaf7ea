// Recovery (DESIGN.md "Recovery rules"): plan → confirm → apply for reset, rollback, undo
// and prune. cmd/ makes a plan, prints it (--dry-run) or asks, then applies it.

export { planReset, planRollback, planUndo, resolveTarget, targetProblems, type MetaPlan, type RecoveryContext, type ResetRequest, type ResetWhich, type UndoRequest, type Overrides } from './plan.js';
export { applyMetaPlan, assertAllowed } from './apply.js';
export { planPrune, applyPrune, previewPrune, type PrunePlan, type PruneRequest } from './prune.js';
export { previewMeta, type RecoveryResult, type MetaChange, type PruneChange } from './result.js';
export { listBackups, backupId, type BackupSummary } from './backup.js';
export { faultHook, parseFault, STEPS, type Step, type StepHook } from './steps.js';
export { withStoreLock, heldLock, lockHolder, holderRefusal, LOCK_WAIT_MS, type HeldLock } from './lock.js';
export { planClean, applyClean, previewClean, planUnclean, applyUnclean, previewUnclean, movedOf, type CleanPlan, type UncleanPlan } from './clean.js';
export { loadBackup, sameStore } from './backup.js';
