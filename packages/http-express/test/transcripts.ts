import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The docs pages whose transcripts tests take, refreshed on request only (`pnpm --filter @sdwan-connections/http-express transcripts`). */
const DOCS = fileURLToPath(new URL("../../../docs/", import.meta.url));

const START = (name: string) => `<!-- transcript: ${name} -->\n`;
const END = "<!-- /transcript -->";

/**
 * `page` (a file of docs/) with each of `blocks` between its markers (`<!-- transcript: NAME -->` … `<!-- /transcript
 * -->`) as a console block. A block the page has no marker for fails: every step a test takes is shown.
 */
const withTranscripts = (page: string, blocks: ReadonlyMap<string, string>): string => {
  let text = page;
  for (const [name, transcript] of blocks) {
    const start = text.indexOf(START(name));
    const end = start < 0 ? -1 : text.indexOf(END, start);
    if (end < 0) throw new Error(`the page has no "${START(name).trim()}" … "${END}" for this transcript`);
    const block = `\`\`\`console\n${transcript.trimEnd()}\n\`\`\`\n`;
    text = `${text.slice(0, start + START(name).length)}${block}${text.slice(end)}`;
  }
  return text;
};

/**
 * Writes docs/`page` with the transcripts a test took: over the tracked page when SDWAN_TRANSCRIPTS=1 (the
 * `transcripts` script), otherwise into a temporary directory (a test run leaves the working tree clean). Answers
 * the file written.
 */
export const writeTranscripts = async (page: string, blocks: ReadonlyMap<string, string>): Promise<string> => {
  const tracked = join(DOCS, page);
  const text = withTranscripts(await readFile(tracked, "utf8"), blocks);
  const file =
    process.env["SDWAN_TRANSCRIPTS"] === "1"
      ? tracked
      : join(await mkdtemp(join(tmpdir(), "sdwan-transcripts-")), page);
  await writeFile(file, text);
  return file;
};
