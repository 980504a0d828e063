import { assertContainerRuntime } from "./support/containers.js";
import { BASE_IMAGE, buildServiceImage, SERVICE_IMAGE } from "./support/image.js";

/**
 * Runs once before the e2e files: checks that a container runtime answers
 * (else the run fails with one line; it never skips), then builds the service
 * image from packages/http-express/Dockerfile.
 */
const shared = globalThis as { sdwanE2eSetup?: Promise<void> };

export default async function setup(): Promise<void> {
  shared.sdwanE2eSetup ??= (async () => {
    await assertContainerRuntime();
    const { seconds } = await buildServiceImage();
    process.stderr.write(`e2e: built ${SERVICE_IMAGE} from ${BASE_IMAGE} in ${seconds} s\n`);
  })();
  await shared.sdwanE2eSetup;
}
