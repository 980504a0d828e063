import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ADMIN_COMMANDS } from "../src/admin-commands.js";
import { COMMANDS } from "../src/commands.js";
import { CONFIGURATION_COMMANDS } from "../src/configuration-commands.js";
import { CONFIG_COMMANDS } from "../src/context-commands.js";
import { LOGIN_COMMAND } from "../src/login-command.js";
import { OBSERVE_COMMANDS } from "../src/observe-commands.js";

const README = readFileSync(new URL("../README.md", import.meta.url), "utf8");

describe("the README", () => {
  it("names every command the CLI has, as `command …` or in an example line", () => {
    const names = [
      ...COMMANDS,
      ...CONFIGURATION_COMMANDS,
      ...OBSERVE_COMMANDS,
      ...ADMIN_COMMANDS,
      ...CONFIG_COMMANDS,
      LOGIN_COMMAND,
    ].map(({ name }) => name);
    expect(names.length).toBeGreaterThan(30);
    expect(
      names.filter((name) => !README.includes(`\`${name}`) && !README.includes(`sdwan-connections ${name}`)),
    ).toEqual([]);
  });
});
