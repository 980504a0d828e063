import { generateKeyPairSync, randomBytes } from "node:crypto";
import { isIP } from "node:net";
import forge from "node-forge";

export interface TestCertificates {
  /** The CA's certificate (PEM): what a client must trust. */
  readonly caCert: string;
  /** The server's certificate (PEM), signed by that CA. */
  readonly cert: string;
  /** The server's private key (PEM). */
  readonly key: string;
}

const DAY_MS = 86_400_000;

const rsaKeys = () => {
  // node:crypto makes the key pair (fast); forge only signs.
  const { publicKey, privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const privatePem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
  return {
    privatePem,
    privateKey: forge.pki.privateKeyFromPem(privatePem),
    publicKey: forge.pki.publicKeyFromPem(publicKey.export({ type: "spki", format: "pem" }).toString()),
  };
};

const certificate = (publicKey: forge.pki.PublicKey, subject: string, issuer: string): forge.pki.Certificate => {
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKey;
  cert.serialNumber = `01${randomBytes(8).toString("hex")}`;
  cert.validity.notBefore = new Date(Date.now() - DAY_MS);
  cert.validity.notAfter = new Date(Date.now() + 30 * DAY_MS);
  cert.setSubject([{ name: "commonName", value: subject }]);
  cert.setIssuer([{ name: "commonName", value: issuer }]);
  return cert;
};

/**
 * A fresh private CA and a server certificate it signed, for `hosts` (IP
 * addresses become IP SANs, names DNS SANs): what an on-premises
 * orchestrator looks like to a client, for TLS tests. Nothing is written to disk.
 */
export const createTestCertificates = (options: { readonly hosts?: readonly string[] } = {}): TestCertificates => {
  const hosts = options.hosts ?? ["127.0.0.1", "localhost", "::1"];
  const ca = rsaKeys();
  const caName = `sdwan-connections test CA ${randomBytes(4).toString("hex")}`;
  const caCert = certificate(ca.publicKey, caName, caName);
  caCert.setExtensions([
    { name: "basicConstraints", cA: true, critical: true },
    { name: "keyUsage", keyCertSign: true, cRLSign: true, critical: true },
    { name: "subjectKeyIdentifier" },
  ]);
  caCert.sign(ca.privateKey, forge.md.sha256.create());

  const server = rsaKeys();
  const serverCert = certificate(server.publicKey, hosts[0] ?? "localhost", caName);
  serverCert.setExtensions([
    { name: "basicConstraints", cA: false },
    { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
    { name: "extKeyUsage", serverAuth: true },
    {
      name: "subjectAltName",
      altNames: hosts.map((host) => (isIP(host) === 0 ? { type: 2, value: host } : { type: 7, ip: host })),
    },
    { name: "authorityKeyIdentifier", keyIdentifier: caCert.generateSubjectKeyIdentifier().getBytes() },
  ]);
  serverCert.sign(ca.privateKey, forge.md.sha256.create());

  return {
    caCert: forge.pki.certificateToPem(caCert),
    cert: forge.pki.certificateToPem(serverCert),
    key: server.privatePem,
  };
};
