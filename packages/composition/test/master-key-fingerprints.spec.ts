import { randomBytes } from "node:crypto";
import { describeKeyFingerprintsContract } from "@sdwan-connections/core/contract";
import { createKeyring, masterKey } from "@sdwan-connections/secrets";
import { masterKeyFingerprints } from "@sdwan-connections/core";

const deploymentKey = masterKey(randomBytes(32));

// What the service wires: every instance with the deployment's master key computes the same fingerprints.
describeKeyFingerprintsContract("masterKeyFingerprints", {
  make: () => masterKeyFingerprints(createKeyring({ current: deploymentKey })),
  makeElsewhere: () => masterKeyFingerprints(createKeyring({ current: masterKey(randomBytes(32)) })),
});
