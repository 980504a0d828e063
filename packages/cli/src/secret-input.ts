/** What reading a secret needs of the process: its standard input and where the prompt goes. */
export interface SecretInput {
  readonly stdin: NodeJS.ReadStream;
  readonly prompt: { write(text: string): unknown };
}

const ENTER = new Set(["\r", "\n"]);
const CTRL_C = "\u0003";
const CTRL_D = "\u0004";
const ERASE = new Set(["\u007f", "\b"]);

/**
 * The apiKey, from standard input. On a terminal: after `prompt`, typed with echo off (raw mode, nothing is
 * drawn for what is typed), ended by one Enter; Ctrl-C cancels (undefined). Otherwise (a pipe, a file): all
 * of it, without a prompt; one trailing line break is the shell's, not the key's.
 */
export const readSecret = async ({ stdin, prompt }: SecretInput, text: string): Promise<string | undefined> => {
  if (stdin.isTTY !== true) {
    const chunks: Buffer[] = [];
    for await (const chunk of stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks)
      .toString("utf8")
      .replace(/\r?\n$/, "");
  }
  prompt.write(text);
  stdin.setRawMode(true);
  stdin.setEncoding("utf8");
  let secret = "";
  try {
    return await new Promise<string | undefined>((resolve) => {
      const onData = (data: string) => {
        for (const character of data) {
          if (ENTER.has(character) || character === CTRL_D) return finish(secret);
          if (character === CTRL_C) return finish(undefined);
          secret = ERASE.has(character) ? secret.slice(0, -1) : secret + character;
        }
      };
      const finish = (value: string | undefined) => {
        stdin.off("data", onData);
        resolve(value);
      };
      stdin.on("data", onData);
      stdin.resume();
    });
  } finally {
    stdin.setRawMode(false);
    stdin.pause();
    // The Enter was not echoed: end the prompt's line.
    prompt.write("\n");
  }
};
