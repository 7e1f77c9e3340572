/**
 * @swim/encryption: authenticated, encrypted gossip for @swim/runtime members. A keyring of AES keys
 * (AES-GCM through WebCrypto, memberlist's encrypted message format), cluster labels, and
 * `secureTransport()`, which wraps any Transport. Browser-safe: WebCrypto only, no Node built-ins.
 *
 * @packageDocumentation
 */
export { KEY_SIZES, KeyringError, Keyring, parseKey, formatKey, generateKey } from './keyring.js';
export { webCryptoEngine, type AesGcmEngine, type AesGcmKey, type MaybePromise } from './engine.js';
export {
  NONCE_BYTES,
  TAG_BYTES,
  MAX_ENCRYPTION_VERSION,
  encryptionOverhead,
  encryptedLength,
  encryptBlob,
  decryptBlob,
  type EncryptionVersion,
  type EncryptOptions,
  type DecryptOptions,
} from './aes-gcm.js';
export { LABEL_HEADER_TYPE, MAX_LABEL_BYTES, labelHeader, labelProblem, readLabel, type LabelRead } from './label.js';
export {
  ENCRYPT_MSG_TYPE,
  STREAM_HEADER_BYTES,
  MAX_ENCRYPTED_STREAM_BYTES,
  addLabel,
  checkLabel,
  encryptPacket,
  decryptPacket,
  encryptStream,
  decryptStream,
  isEncryptedStream,
  openPacket,
  openStream,
  sealPacket,
  sealStream,
  type LabelCheck,
  type StreamDecryption,
  type Opened,
  type OpenFailure,
  type OpenOptions,
  type SealOptions,
} from './envelope.js';
export {
  SERVICE_STREAM_BYTE,
  KEY_OPS_SERVICE,
  plaintextService,
  acceptsPlaintext,
  serviceRequestBytes,
  parseServiceRequest,
  isServiceStream,
  type ServiceRequest,
  type ServiceHandler,
} from './services.js';
export { validateSecureTransportOptions, DEFAULT_MAX_IN_FLIGHT, type SecureTransportOptions } from './options.js';
export type { SecureTransportCounters } from './counters.js';
export { secureTransportMetrics } from './metrics.js';
export { secureTransport, type SecureTransport } from './secure-transport.js';

// ---- key operations (src/key-ops/): the service that runs `swim keys` across a cluster
export {
  checkKeyOp,
  decodeKeyOpReply,
  decodeKeyOpRequest,
  encodeKeyOpReply,
  encodeKeyOpRequest,
  keyOpsService,
  runKeyOp,
  validateRunKeyOp,
  formatKeyOpReport,
  DEFAULT_KEY_OP_CONCURRENCY,
  DEFAULT_KEY_OP_TIMEOUT_MS,
  MAX_KEY_OP_REQUEST_BYTES,
  MAX_KEY_OP_REPLY_BYTES,
  type Decoded,
  type KeyOp,
  type KeyOpReply,
  type KeyOpTarget,
  type KeyOpReport,
  type KeyOpFailure,
  type KeyOpTransport,
  type RunKeyOpOptions,
} from './key-ops/index.js';
