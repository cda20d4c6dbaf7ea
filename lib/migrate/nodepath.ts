// Host paths and node paths under --root: files are read and written at host paths, but
// what the kubelet sees (and what goes into its config and unit files) are node paths.
// The conversion belongs to the store's rooted reading (lib/store/rooted.ts).

export { nodePathOf } from '../store/rooted.js';
