import * as E from "fp-ts/lib/Either.js";
import { describe, expect, it, vi } from "vitest";
import type * as Output from "./output.js";

const drawn = vi.hoisted(() => ({ tables: 0 }));
vi.mock("./output.js", async (original) => {
  const output = await original<typeof Output>();
  return {
    ...output,
    table: (...args: Parameters<typeof output.table>) => ((drawn.tables += 1), output.table(...args)),
  };
});

describe("the command line", () => {
  it("draws the overview only when it is asked for: a command's start draws no table (issue 40)", async () => {
    const { help, parseCommandLine } = await import("./command-line.js");
    expect(parseCommandLine(["list"])).toMatchObject({ right: { kind: "run" } });
    expect(drawn.tables).toBe(0);
    expect(help()).toContain("Commands:");
    expect(drawn.tables).toBe(1);
  });

  it("draws every help text for a terminal of 80 columns: the usage, the options, the notes and the overview", async () => {
    const { parseCommandLine, staticHelp } = await import("./command-line.js");
    const asked = [
      ...["tokens", "grants", "webhooks", "config"].map((group) => ["help", group]),
      ...["tokens create", "webhooks add", "config set-context"].map((name) => [...name.split(" "), "--help"]),
    ].map((argv) => parseCommandLine(argv));
    const texts = [
      ...Object.values(staticHelp()),
      ...asked.flatMap((parsed) => (E.isRight(parsed) && parsed.right.kind === "text" ? [parsed.right.text] : [])),
    ];
    expect(texts.length).toBe(Object.keys(staticHelp()).length + asked.length);
    for (const text of texts) for (const line of text.split("\n")) expect(line.length, line).toBeLessThanOrEqual(80);
  });

  it("answers a group's --help with the group's help, as `help <group>`, and `help <group> <sub>` with the subcommand's", async () => {
    const { parseCommandLine, staticHelp } = await import("./command-line.js");
    const textOf = (argv: string[]) => {
      const parsed = parseCommandLine(argv);
      return E.isRight(parsed) && parsed.right.kind === "text"
        ? parsed.right.text
        : `not a text: ${JSON.stringify(parsed)}`;
    };
    for (const group of ["tokens", "grants", "webhooks"]) {
      const groupHelp = textOf(["help", group]);
      expect(groupHelp).toContain(`sdwan-connections ${group} `);
      expect(textOf([group, "--help"])).toBe(groupHelp);
      expect(textOf([group, "-h"])).toBe(groupHelp);
      // The installed command prints it without loading a command (main.ts).
      expect(staticHelp()[group]).toBe(groupHelp);
    }
    expect(textOf(["help", "config", "set-context"])).toBe(textOf(["config", "set-context", "--help"]));
    expect(textOf(["help", "config", "set-context"])).not.toBe(textOf(["help", "config"]));
    expect(textOf(["help", "tokens", "create"])).toBe(textOf(["tokens", "create", "--help"]));
  });
});
