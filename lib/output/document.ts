// Every JSON/YAML document names its shape: `apiVersion` (the contract's version) and `kind`
// come first, put there by the printer, so scripts can check what they were handed and the
// schema that describes it (schema/<kind>.json in the package).

import type { CkptError } from '../errors.js';

export const API_VERSION = 'kubelet-ckpt/v1';

/** The kinds of document the CLI prints; schema/<Kind>.json describes each. */
export const KINDS = [
  'StatusReport',
  'CheckpointList',
  'VerifyReport',
  'ShowResult',
  'ShowList',
  'FieldValue',
  'DiffReport',
  'DiffHistory',
  'JournalReport',
  'RecoveryResult',
  'BackupList',
  'ExportResult',
  'MigrateResult',
  'UpgradeCheck',
  'NodeReport',
  'FleetReport',
  'JournalEvent',
  'Error',
] as const;

export type Kind = (typeof KINDS)[number];

export interface Header {
  apiVersion: typeof API_VERSION;
  kind: string;
}

/**
 * The document for a result: `apiVersion` and `kind` first, then the result's own fields. A
 * result that already carries this apiVersion (a shape that names itself) keeps its kind; any
 * other `kind` field of a result is the header's.
 */
export function documentOf<T extends object>(result: T, kind: Kind | string): Header & T {
  const own = (result as Partial<Header>).apiVersion === API_VERSION && typeof (result as Partial<Header>).kind === 'string';
  return { apiVersion: API_VERSION, kind, ...result, ...(own ? {} : { kind }) } as Header & T;
}

export interface ErrorDocument extends Header {
  error: { code: string; message: string; hint: string | null; exitCode: number };
}

/** The error object printed on stderr under -o json / -o yaml (stdout stays empty). */
export function errorDocument(e: CkptError): ErrorDocument {
  return { apiVersion: API_VERSION, kind: 'Error', error: { code: e.code, message: e.message, hint: e.hint, exitCode: e.exitCode } };
}
