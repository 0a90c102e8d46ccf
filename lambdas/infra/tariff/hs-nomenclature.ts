import lines from './hs-nomenclature.json';

/**
 * The Harmonized System nomenclature, HS 2022: every 4-digit heading and 6-digit subheading with its
 * English description, one `code<TAB>description` line each, as the HS tier reads it
 * (core/tariff/hs-fallback.ts `createHsIndex`). The data is hs-nomenclature.json beside this file,
 * one line per array entry. Source: UN Comtrade via datahub's harmonized-system data package
 * (github.com/datasets/harmonized-system), ODC Public Domain Dedication and Licence (PDDL) 1.0;
 * written by scripts/hs-nomenclature.ts, not by hand. Loaded only on the classifier's fallback path
 * (classifier-port.ts `loadHsIndex`); a Lambda bundle carries it as a module of its own beside
 * index.mjs (lib/bundling.ts `lazyModules`).
 */
export const hsNomenclature = lines.join('\n');
