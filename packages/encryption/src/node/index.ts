/**
 * @swim/encryption/node: what only Node has. `nodeCryptoEngine` runs AES-GCM through node:crypto,
 * several times cheaper per packet than WebCrypto in Node (the root entry's default).
 */
export { nodeCryptoEngine } from './node-crypto-engine.js';
