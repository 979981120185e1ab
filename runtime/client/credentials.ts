/**
 * Bearer credentials that change over time: a static token, a token file (re-read at most once a minute and
 * whenever the server answers 401 — in-cluster tokens rotate), or an exec credential plugin (run, parse the
 * `ExecCredential`, cache until `expirationTimestamp`, run again on 401). Tokens are never logged.
 * @module
 */

import type { Clock } from "../clock.ts";
import { RealClock } from "../clock.ts";
import type { ClusterConfig } from "./kubeconfig.ts";

/** The slice of a {@link ClusterConfig} that authenticates with a bearer token. */
export type BearerConfig = Pick<ClusterConfig, "token" | "tokenFile" | "exec">;

/** Raised when an exec plugin fails or prints something that is not an ExecCredential. */
export class CredentialError extends Error {
  /** Creates the error. */
  constructor(message: string) {
    super(message);
    this.name = "CredentialError";
  }
}

const TOKEN_FILE_REREAD_MS = 60_000;

/**
 * Hands out the current `Authorization` header value.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { BearerCredentials } from "./credentials.ts";
 * const creds = new BearerCredentials({ token: "abc" });
 * assert.ok(await creds.authorization() === "Bearer abc");
 * ```
 */
export class BearerCredentials {
  readonly #config: BearerConfig;
  readonly #clock: Clock;
  #token?: string;
  #cert?: { certPEM: string; keyPEM: string };
  #validUntilMs = 0;
  #pending?: Promise<string | undefined>;

  /** Reads nothing yet: the token file or plugin runs on first use. */
  constructor(config: BearerConfig, opts: { clock?: Clock } = {}) {
    this.#config = config;
    this.#clock = opts.clock ?? new RealClock();
  }

  /** True when there is anything to send. */
  get configured(): boolean {
    return Boolean(this.#config.token || this.#config.tokenFile || this.#config.exec);
  }

  /** `Bearer <token>`, or undefined when no bearer credential is configured. */
  async authorization(): Promise<string | undefined> {
    const token = await this.token();
    return token ? `Bearer ${token}` : undefined;
  }

  /** The current token (re-read or re-run when stale). */
  token(): Promise<string | undefined> {
    if (!this.#config.tokenFile && !this.#config.exec) return Promise.resolve(this.#config.token);
    const fresh = this.#validUntilMs > 0 && this.#clock.now() < this.#validUntilMs;
    if (fresh) return Promise.resolve(this.#token);
    this.#pending ??= this.#refresh().finally(() => this.#pending = undefined);
    return this.#pending;
  }

  /**
   * The client certificate an exec plugin returned (`clientCertificateData`/`clientKeyData`), refreshed with the
   * token; undefined without an exec plugin or when it returned none.
   */
  async clientCertificate(): Promise<{ certPEM: string; keyPEM: string } | undefined> {
    if (!this.#config.exec) return undefined;
    await this.token();
    return this.#cert;
  }

  /** Forgets the cached token (call after a 401); the next {@link token} re-reads or re-runs. */
  invalidate(): void {
    this.#validUntilMs = 0;
  }

  async #refresh(): Promise<string | undefined> {
    if (this.#config.tokenFile) {
      const text = await Deno.readTextFile(this.#config.tokenFile);
      this.#token = text.trim();
      this.#validUntilMs = this.#clock.now() + TOKEN_FILE_REREAD_MS;
      return this.#token;
    }
    const cred = await runExecPlugin(this.#config.exec!);
    this.#token = cred.token;
    this.#cert = cred.certPEM && cred.keyPEM ? { certPEM: cred.certPEM, keyPEM: cred.keyPEM } : undefined;
    this.#validUntilMs = cred.expirationMs ?? Number.POSITIVE_INFINITY;
    return this.#token;
  }
}

/** What an exec plugin returned. */
export interface ExecResult {
  /** Bearer token. */
  token?: string;
  /** Client certificate (PEM). */
  certPEM?: string;
  /** Client key (PEM). */
  keyPEM?: string;
  /** Epoch ms of `status.expirationTimestamp`, when given. */
  expirationMs?: number;
}

/** Runs an exec credential plugin once and parses its `ExecCredential` output. */
export async function runExecPlugin(exec: NonNullable<ClusterConfig["exec"]>): Promise<ExecResult> {
  const apiVersion = exec.apiVersion ?? "client.authentication.k8s.io/v1";
  const env: Record<string, string> = {
    KUBERNETES_EXEC_INFO: JSON.stringify({ apiVersion, kind: "ExecCredential", spec: { interactive: false } }),
  };
  for (const e of exec.env ?? []) env[e.name] = e.value;
  let output: Deno.CommandOutput;
  try {
    output = await new Deno.Command(exec.command, {
      args: exec.args ?? [],
      env,
      cwd: exec.cwd,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
  } catch (err) {
    throw new CredentialError(`exec plugin ${exec.command}: ${(err as Error).message}`);
  }
  if (!output.success) {
    const stderr = new TextDecoder().decode(output.stderr).slice(0, 500);
    throw new CredentialError(`exec plugin ${exec.command} exited ${output.code}: ${stderr}`);
  }
  // deno-lint-ignore no-explicit-any
  let doc: any;
  try {
    doc = JSON.parse(new TextDecoder().decode(output.stdout));
  } catch {
    throw new CredentialError(`exec plugin ${exec.command}: output is not JSON`);
  }
  if (doc?.kind !== "ExecCredential" || typeof doc.status !== "object") {
    throw new CredentialError(`exec plugin ${exec.command}: output is not an ExecCredential with a status`);
  }
  const status = doc.status;
  const result: ExecResult = {};
  if (typeof status.token === "string") result.token = status.token;
  if (typeof status.clientCertificateData === "string") result.certPEM = status.clientCertificateData;
  if (typeof status.clientKeyData === "string") result.keyPEM = status.clientKeyData;
  if (typeof status.expirationTimestamp === "string") {
    const ms = Date.parse(status.expirationTimestamp);
    if (!Number.isNaN(ms)) result.expirationMs = ms;
  }
  if (!result.token && !result.certPEM) {
    throw new CredentialError(`exec plugin ${exec.command}: ExecCredential has neither token nor client certificate`);
  }
  return result;
}
