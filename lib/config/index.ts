// Public surface of lib/config: decoding, defaults, validation, flags, gates and path
// fields of a KubeletConfiguration, modelled on kubelets 1.20–1.23.

export { SUPPORTED_VERSIONS, DEFAULT_VERSION, parseKubeletVersion, resolveKubeletVersion, atLeast, type KubeletVersion, type ResolvedVersion } from './version.js';
export { decodeKubeletConfig, type DecodeResult, type DecodeOptions, type StrictIssue, type PayloadFormat } from './decode.js';
export { parseYamlDocument, type YamlParse } from './yaml.js';
export { parseGoJson, hasJsonPrefix, type JsonParse, type DuplicateKey } from './json.js';
export { toPlain, type JNode } from './jnode.js';
export { KUBELET_CONFIGURATION, FIELD_TABLE, lookupField, fieldsOf, KUBELET_CONFIG_API_VERSION, type FieldInfo, type FieldKind, type FieldSpec, type TypeSpec, type StructSpec } from './schema.js';
export { V1BETA1_DEFAULTS, DEFAULT_EVICTION_HARD, defaultsFor, applyDefaults, applyDefaultsDetailed, type DefaultRule, type AppliedDefault } from './defaults.js';
export { knownGates, effectiveGates, gateEnabled, gateError, gateErrors, gateWarnings, setFromMap, newGateState, gateSnapshot, type GateSpec, type GateState, type EffectiveGates } from './gates.js';
export { validateKubeletConfig, aggregateError, describeFailure, GO_POINTER_PLACEHOLDER, GO_POINTER_RE, type ValidationFailure, type ValidationResult, type ValidateOptions } from './validate.js';
export { jsoniterError, goJsonBytes } from './jsoniter.js';
export { PATH_FIELDS, pathFieldsFor, relativePathFields, resolveRelativePaths, type RelativePath, type PathField } from './paths.js';
export { parseKubeletFlags, applyFlagOverrides, applyFlagRegistrationResets, configFlags, type FlagOverride, type ParsedFlags, type RegistrationReset } from './flags.js';
export { loadCheckpointConfig, STATUS_ERRORS, type LoadOutcome, type LoadOptions, type LoadStage } from './load.js';
export { parseGoDuration, formatGoDuration, canonicalDuration } from './duration.js';
export { getAt, hasAt, type ConfigObject } from './objpath.js';
