import { createHash, X509Certificate } from 'node:crypto';
import { generate } from 'selfsigned';

export interface SelfSigned {
  readonly cert: string;
  readonly key: string;
  /** base64 SHA-256 of the certificate's SubjectPublicKeyInfo: what Chromium's --ignore-certificate-errors-spki-list takes. */
  readonly spkiSha256: string;
}

/** A fresh self-signed certificate for 127.0.0.1 and localhost (EC P-256, valid for a day). */
export async function selfSigned(): Promise<SelfSigned> {
  const notBeforeDate = new Date(Date.now() - 60_000);
  const pems = await generate([{ name: 'commonName', value: '127.0.0.1' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate: new Date(notBeforeDate.getTime() + 24 * 3600_000),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }, { type: 2, value: 'localhost' }] },
    ],
  });
  return { cert: pems.cert, key: pems.private, spkiSha256: spkiSha256(pems.cert) };
}

export function spkiSha256(certPem: string): string {
  const spki = new X509Certificate(certPem).publicKey.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(spki).digest('base64');
}
