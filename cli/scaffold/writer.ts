/**
 * Writes scaffold files without ever overwriting one the user changed: `.kubeop-scaffold.json` records the project's
 * kinds and the SHA-256 of every file the scaffold wrote. A file is written when it is missing, or when it still holds
 * exactly what the scaffold last wrote; otherwise it is skipped and reported. Re-running a command is idempotent.
 * @module
 */

import { formatFiles } from "./format.ts";
import type { KindSpec } from "./names.ts";

/** The state file, at the project root. */
export const STATE_FILE = ".kubeop-scaffold.json";

/** What `.kubeop-scaffold.json` holds. */
export interface ScaffoldState {
  /** The project (operator) name. */
  name: string;
  /** How deno.json imports kubeop (a path relative to the project or a package specifier). */
  kubeop: string;
  /** Every kind, in the order added. */
  kinds: KindSpec[];
  /** SHA-256 (hex) of each file as the scaffold last wrote it, by path relative to the project. */
  files: Record<string, string>;
}

/** What a write did to each file. */
export interface WriteReport {
  /** Files that did not exist. */
  created: string[];
  /** Files rewritten (they still held the scaffold's last version). */
  updated: string[];
  /** Files already holding the new content. */
  unchanged: string[];
  /** Files left alone: changed since the scaffold wrote them, or not written by it. */
  skipped: string[];
}

/** Hex SHA-256 of `text`. */
export async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Reads the state file of `root`, or undefined when there is none. */
export async function readState(root: string): Promise<ScaffoldState | undefined> {
  try {
    return JSON.parse(await Deno.readTextFile(`${root}/${STATE_FILE}`)) as ScaffoldState;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    throw new Error(`reading ${root}/${STATE_FILE}: ${(err as Error).message}`);
  }
}

async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await Deno.readTextFile(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    throw err;
  }
}

/**
 * Writes `files` (path relative to `root` → content, formatted by `deno fmt` first) under `root` by the rules above, records their hashes in
 * `state`, saves the state file and says what happened to each file.
 */
export async function writeScaffold(
  root: string,
  files: Readonly<Record<string, string>>,
  state: ScaffoldState,
): Promise<WriteReport> {
  const report: WriteReport = { created: [], updated: [], unchanged: [], skipped: [] };
  for (const [path, content] of Object.entries(await formatFiles(files))) {
    const full = `${root}/${path}`;
    const have = await readIfExists(full);
    const hash = await sha256(content);
    if (have === content) {
      report.unchanged.push(path);
      state.files[path] = hash;
      continue;
    }
    if (have !== undefined && state.files[path] !== await sha256(have)) {
      report.skipped.push(path);
      continue;
    }
    await Deno.mkdir(full.slice(0, full.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(full, content, path.startsWith(".ci/") ? { mode: 0o755 } : {});
    if (path.startsWith(".ci/")) await Deno.chmod(full, 0o755);
    (have === undefined ? report.created : report.updated).push(path);
    state.files[path] = hash;
  }
  await Deno.writeTextFile(`${root}/${STATE_FILE}`, JSON.stringify(state, null, 2) + "\n");
  return report;
}

/** The report as lines for the terminal: one per created/updated/skipped file. */
export function describeReport(report: WriteReport): string[] {
  return [
    ...report.created.map((p) => `  created   ${p}`),
    ...report.updated.map((p) => `  updated   ${p}`),
    ...report.skipped.map((p) => `  skipped   ${p} (changed since kubeop wrote it: left as it is)`),
    ...(report.unchanged.length ? [`  unchanged ${report.unchanged.length} files`] : []),
  ];
}
