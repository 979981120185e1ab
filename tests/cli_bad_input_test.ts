/**
 * Issue 22's bad input, through the binary: a kubeconfig that cannot be read or parsed, a context that does not
 * exist, a missing certificate file, an unreadable file a flag names, an out-of-range flag — each exits 2 with one
 * line naming the file and the field (or the flag), before anything listens (nothing half-started). No cluster
 * configuration at all stays a runtime failure (exit 1, tests/manager_cli_test.ts).
 */
import assert from "node:assert/strict";

const MAIN = new URL("../main.ts", import.meta.url).pathname;

async function kubeop(...args: string[]): Promise<{ code: number; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", MAIN, ...args],
    stdout: "piped",
    stderr: "piped",
    env: { HOME: "/nonexistent", KUBECONFIG: "" },
  }).output();
  return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
}

const KUBECONFIG = `apiVersion: v1
kind: Config
clusters:
  - name: lab
    cluster:
      server: https://127.0.0.1:1
users:
  - name: jane
    user:
      client-certificate: jane.crt
      client-key: jane.key
contexts:
  - name: lab
    context: { cluster: lab, user: jane }
current-context: lab
`;

/** Exit 2, one line, matching `pattern`, and no server started. */
function assertUsage(res: { code: number; stderr: string }, pattern: RegExp): void {
  assert.equal(res.code, 2, res.stderr);
  assert.equal(res.stderr.trim().split("\n").length, 1, res.stderr);
  assert.match(res.stderr, pattern);
  assert.doesNotMatch(res.stderr, /listening|kubeop \S+ starting/);
}

Deno.test("run and apiserver: an unusable kubeconfig is a usage error naming the file and the field", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kubeop-bad-input-" });
  try {
    const path = `${dir}/kubeconfig`;
    await Deno.writeTextFile(path, KUBECONFIG);
    const off = ["--metrics-bind-address=0", "--health-probe-bind-address=0"];
    for (const command of [["run", ...off], ["apiserver", "--auth=none", "--secure-port=0"]]) {
      const name = command[0];
      // a context that does not exist
      assertUsage(
        await kubeop(...command, `--kubeconfig=${path}`, "--context=prod"),
        new RegExp(`^kubeop ${name}: kubeconfig ${path}: context "prod" \\(--context\\) not found; contexts: "lab"`),
      );
      // certificate files that are missing
      assertUsage(
        await kubeop(...command, `--kubeconfig=${path}`),
        new RegExp(`kubeconfig ${path}: user "jane" client-certificate: cannot read ${dir}/jane.crt: no such file`),
      );
      // a file that cannot be read
      assertUsage(await kubeop(...command, `--kubeconfig=${dir}/missing`), new RegExp(`kubeconfig ${dir}/missing: `));
      // a file that does not parse
      await Deno.writeTextFile(`${dir}/broken`, "clusters: [\n  - {");
      assertUsage(await kubeop(...command, `--kubeconfig=${dir}/broken`), /kubeconfig .*broken: invalid YAML/);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("apiserver: a file a flag names that cannot be read is a usage error naming the flag", async () => {
  assertUsage(
    await kubeop("apiserver", "--auth=none", "--requestheader-client-ca-file=/nonexistent/ca.crt"),
    /^kubeop apiserver: flag --requestheader-client-ca-file: cannot read \/nonexistent\/ca.crt: no such file/,
  );
  assertUsage(
    await kubeop("apiserver", "--auth=none", "--tls-cert-file=/nonexistent/tls.crt", "--tls-private-key-file=/x.key"),
    /^kubeop apiserver: flag --tls-cert-file: cannot read \/nonexistent\/tls.crt/,
  );
});

Deno.test("usage errors of every starting command: unknown flag, bad value, out-of-range port", async () => {
  assertUsage(await kubeop("run", "--no-such-flag"), /^kubeop run: .*--no-such-flag/);
  assertUsage(await kubeop("dev", "--no-such-flag"), /^kubeop dev: .*--no-such-flag/);
  assertUsage(await kubeop("apiserver", "--no-such-flag"), /^kubeop apiserver: .*--no-such-flag/);
  assertUsage(await kubeop("run", "--leader-elect=maybe"), /--leader-elect takes true or false, got "maybe"/);
  assertUsage(await kubeop("dev", "--port=70000"), /^kubeop dev: flag --port must be ≤ 65535/);
  assertUsage(await kubeop("apiserver", "--secure-port=x"), /--secure-port must be a non-negative integer/);
});

Deno.test("run: a proxy variable that does not parse is a usage error naming the variable, never its value", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kubeop-bad-input-" });
  try {
    const path = `${dir}/kubeconfig`;
    await Deno.writeTextFile(path, KUBECONFIG.replace(/client-certificate: .*\n.*client-key: .*\n/, "token: abc\n"));
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-all", MAIN, "run", `--kubeconfig=${path}`, "--metrics-bind-address=0"],
      stdout: "piped",
      stderr: "piped",
      env: { HOME: "/nonexistent", KUBECONFIG: "", HTTPS_PROXY: "http://user:pw-s3cret@[bad", NO_PROXY: "" },
    }).output();
    const res = { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
    assertUsage(res, /^kubeop run: HTTPS_PROXY is not a URL \(the proxy for https:\/\/127\.0\.0\.1:1\)/);
    assert.doesNotMatch(res.stderr, /s3cret/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("run: a probe port in use is a runtime failure (exit 1) naming the address, after stopping what started", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kubeop-bad-input-" });
  const busy = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    const path = `${dir}/kubeconfig`;
    await Deno.writeTextFile(path, KUBECONFIG.replace(/client-certificate: .*\n.*client-key: .*\n/, "token: abc\n"));
    const address = `127.0.0.1:${busy.addr.port}`;
    const res = await kubeop(
      "run",
      `--kubeconfig=${path}`,
      "--metrics-bind-address=127.0.0.1:0",
      `--health-probe-bind-address=${address}`,
      "--log-format=text",
    );
    assert.equal(res.code, 1, res.stderr);
    const last = res.stderr.trim().split("\n").at(-1) ?? "";
    assert.match(last, new RegExp(`^kubeop run: health probe server: cannot listen on ${address}`));
    assert.match(res.stderr, /INFO kubeop stopped/, "what had started (the metrics server) was stopped");
  } finally {
    busy.close();
    await Deno.remove(dir, { recursive: true });
  }
});
