/**
 * Formats rendered scaffold files with `deno fmt` (line width 120, as kubeop's own), so a project is `deno fmt`-clean
 * whatever its kind names make the lines' lengths, and a re-run compares like with like.
 * @module
 */

import { denoBinary } from "./generate.ts";

const FORMATTED = /\.(ts|json|md|ya?ml)$/;

/** `files` (path → content) as `deno fmt --line-width=120` leaves them. */
export async function formatFiles(files: Readonly<Record<string, string>>): Promise<Record<string, string>> {
  const dir = await Deno.makeTempDir({ prefix: "kubeop-scaffold-" });
  try {
    const paths = Object.keys(files).filter((p) => FORMATTED.test(p));
    for (const path of paths) {
      await Deno.mkdir(`${dir}/${path}`.slice(0, `${dir}/${path}`.lastIndexOf("/")), { recursive: true });
      await Deno.writeTextFile(`${dir}/${path}`, files[path]);
    }
    const out = await new Deno.Command(denoBinary(), {
      args: ["fmt", "--quiet", "--line-width=120", ...paths],
      cwd: dir,
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!out.success) throw new Error(`deno fmt of the scaffold failed: ${new TextDecoder().decode(out.stderr)}`);
    const formatted: Record<string, string> = { ...files };
    for (const path of paths) formatted[path] = await Deno.readTextFile(`${dir}/${path}`);
    return formatted;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
