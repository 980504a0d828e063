import { fileURLToPath } from "node:url";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

const REPOSITORY = fileURLToPath(new URL("../../..", import.meta.url));
const eslint = new ESLint({ cwd: REPOSITORY });

/** What the repository's ESLint configuration says of `code` were it the file `path`. */
const problems = async (path: string, code: string): Promise<string[]> => {
  const [result] = await eslint.lintText(code, { filePath: path });
  return (result?.messages ?? []).map(({ message }) => message);
};
const importing = (specifier: string) => `import * as imported from "${specifier}";\nexport const used = imported;\n`;

// The dependency rule of docs/architecture.md, as eslint.config.js holds it (one option list per rule and file: the
// last matching config's).
describe("the dependency rule", () => {
  // Regression: the "nothing imports a driver" config came after the adapters' and replaced their list, so an
  // adapter could import the composition or another adapter unnoticed.
  it("refuses an adapter importing the composition or another adapter", async () => {
    expect(
      await problems("packages/orchestrator-portal/src/probe.ts", importing("@sdwan-connections/composition")),
    ).toEqual([expect.stringContaining("An adapter imports only core, secrets and outbound-http.")]);
    expect(
      await problems("packages/storage-postgres/src/probe.ts", importing("@sdwan-connections/storage-lowdb")),
    ).toEqual([expect.stringContaining("An adapter imports only core, secrets and outbound-http.")]);
  });

  // Regression: core's domain (answers.ts) imported two use cases' types, and a use case imported services.
  it("keeps core's layers: none imports a higher one (domain → ports → adapters → use-cases → services)", async () => {
    expect(await problems("packages/core/src/domain/probe.ts", importing("../use-cases/add-connection.js"))).toEqual([
      expect.stringContaining("core's domain imports no higher layer"),
    ]);
    expect(await problems("packages/core/src/use-cases/probe.ts", importing("../services/health-states.js"))).toEqual([
      expect.stringContaining("core's use-cases imports no higher layer"),
    ]);
    expect(await problems("packages/core/src/services/probe.ts", importing("../use-cases/add-connection.js"))).toEqual(
      [],
    );
  });

  it("keeps OpenTelemetry in the composition: core, the adapters and the drivers import none of it", async () => {
    for (const path of [
      "packages/core/src/probe.ts",
      "packages/storage-lowdb/src/probe.ts",
      "packages/orchestrator-portal/src/probe.ts",
      "packages/http-express/src/probe.ts",
      "packages/cli/src/probe.ts",
    ])
      expect(await problems(path, importing("@opentelemetry/api")), path).toHaveLength(1);
    expect(await problems("packages/composition/src/probe.ts", importing("@opentelemetry/api"))).toEqual([]);
  });

  it("still refuses a driver anywhere but the demo launcher", async () => {
    expect(await problems("packages/reliability/test/probe.ts", importing("@sdwan-connections/http-express"))).toEqual([
      expect.stringContaining("Nothing imports a driver."),
    ]);
    expect(await problems("packages/composition/src/probe.ts", importing("@sdwan-connections/cli"))).toHaveLength(1);
  });
});
