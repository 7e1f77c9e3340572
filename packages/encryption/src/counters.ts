/** What a secure transport did, counted since it was created. */
export interface SecureTransportCounters {
  /** Packets sent encrypted. */
  packetsEncrypted: number;
  /** Packets received encrypted and opened. */
  packetsDecrypted: number;
  /** Stream requests and replies sent encrypted. */
  streamsEncrypted: number;
  /** Stream requests and replies received encrypted and opened. */
  streamsDecrypted: number;
  /** No key decrypted a packet or stream that had to be encrypted, or it was malformed (dropped). */
  decryptFailures: number;
  /** `verifyIncoming` off and the packet or stream was plaintext (delivered). */
  plaintextAccepted: number;
  /** `verifyIncoming` on and a stream request or reply was not encrypted (refused). */
  plaintextRefused: number;
  /** Another label, none when one is configured, one when none is, or a bad label header (dropped). */
  labelMismatches: number;
  /** Over `maxInFlight` crypto operations (dropped). */
  inFlightDropped: number;
  /** Service requests handed to their handler. */
  serviceRequests: number;
  /** Service requests refused: unknown service, no service id, or not encrypted. */
  serviceRefused: number;
  /** Exceptions caught inside the wrapper (also passed to `onError`). */
  errors: number;
}

export function zeroCounters(): SecureTransportCounters {
  return {
    packetsEncrypted: 0,
    packetsDecrypted: 0,
    streamsEncrypted: 0,
    streamsDecrypted: 0,
    decryptFailures: 0,
    plaintextAccepted: 0,
    plaintextRefused: 0,
    labelMismatches: 0,
    inFlightDropped: 0,
    serviceRequests: 0,
    serviceRefused: 0,
    errors: 0,
  };
}
