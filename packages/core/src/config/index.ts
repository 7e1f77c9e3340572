export type { HealthScaling, PenaltyOrder, ProbeTimeoutMode, SwimConfig } from './config.js';
export { memberlistProfile, presets, type PresetName } from './presets.js';
export { ConfigError, resolveConfig, validateConfig } from './validate.js';
export { failureDetectionBoundMs } from './detection-bound.js';
