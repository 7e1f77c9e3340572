export {
  distanceNanoseconds,
  distanceSeconds,
  isCompatible,
  isValidCoordinate,
  newCoordinate,
  rawDistance,
  type Coordinate,
  type CoordinateShape,
} from './coordinate.js';
export { DEFAULT_VIVALDI_CONFIG, resolveVivaldiConfig, validateVivaldiConfig, type VivaldiConfig } from './vivaldi-config.js';
export {
  MAX_RTT_SECONDS,
  VivaldiClient,
  type VivaldiClientOptions,
  type VivaldiRejection,
  type VivaldiStats,
  type VivaldiUpdate,
} from './vivaldi-client.js';
export { NetworkCoordinates } from './network-coordinates.js';
