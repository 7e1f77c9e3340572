/** Live key rotation across the cluster (`swim keys`): the service each member runs and the fan-out. */
export {
  checkKeyOp,
  checkKeyOpReply,
  decodeKeyOpReply,
  decodeKeyOpRequest,
  encodeKeyOpReply,
  encodeKeyOpRequest,
  KEY_OP_NAMES,
  MAX_KEY_OP_ERROR_CHARS,
  MAX_KEY_OP_REPLY_BYTES,
  MAX_KEY_OP_REPLY_KEYS,
  MAX_KEY_OP_REQUEST_BYTES,
  type Decoded,
  type KeyOp,
  type KeyOpReply,
} from './codec.js';
export { applyKeyOp, type KeyOpKeyring } from './apply.js';
export { keyOpsService } from './service.js';
export {
  DEFAULT_KEY_OP_CONCURRENCY,
  DEFAULT_KEY_OP_TIMEOUT_MS,
  runKeyOp,
  validateRunKeyOp,
  type KeyOpFailure,
  type KeyOpReport,
  type KeyOpTarget,
  type KeyOpTransport,
  type RunKeyOpOptions,
} from './run.js';
export { formatKeyOpReport } from './format.js';
