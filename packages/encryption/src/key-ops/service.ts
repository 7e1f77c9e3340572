import type { Keyring } from '../keyring.js';
import type { ServiceHandler } from '../services.js';
import { applyKeyOp, keyringReply } from './apply.js';
import { decodeKeyOpRequest, encodeKeyOpReply } from './codec.js';

/**
 * The key-operations service (KEY_OPS_SERVICE) for one member: applies list, install, use or
 * remove to `keyring` and replies with `{ ok, error?, keys, primary }` (Serf's internal key
 * queries, serf/internal_query.go handleInstallKey and friends, answered over a service stream
 * instead of a gossiped query).
 *
 * Only an encrypted request is ever acted on: one that arrived in plaintext (possible while
 * verifyIncoming is off during a roll-out) could come from anyone who reaches the port, so it is
 * closed without a reply and without telling the sender anything about the keyring. A malformed
 * request gets a refusal naming the problem. The handler never throws.
 */
export function keyOpsService(keyring: Keyring): ServiceHandler {
  return (request) => {
    if (!request.encrypted) return undefined;
    try {
      const decoded = decodeKeyOpRequest(request.body);
      const reply = decoded.ok ? applyKeyOp(keyring, decoded.value) : keyringReply(keyring, `bad request: ${decoded.error}`);
      return encodeKeyOpReply(reply);
    } catch {
      // Only a keyring that cannot describe itself gets here; the requester sees no answer.
      return undefined;
    }
  };
}
