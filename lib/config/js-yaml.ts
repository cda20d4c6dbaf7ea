// js-yaml, through one door: the YAML fallback parser (lib/config/yaml.ts), `-o yaml`, the TUI,
// migrate and fleet. Loading js-yaml builds its schemas, about a millisecond of every start,
// while a plain `status` parses its meta files and payloads on the fast path and prints text.
// The bundle (scripts/build.mjs, lazyJsYaml) turns this module into one that loads js-yaml on
// the first call; here, run from source, it is a plain import.

import * as jsYamlModule from 'js-yaml';

export type JsYaml = typeof jsYamlModule;

export function jsYaml(): JsYaml {
  return jsYamlModule;
}
