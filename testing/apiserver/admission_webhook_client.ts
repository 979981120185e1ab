/**
 * Sends one review to a webhook as kube-apiserver's webhook client does: `clientConfig.url`, or `clientConfig.service`
 * resolved through the same route the aggregator uses for APIServices (the Service's endpoints, or an ExternalName
 * host) plus `service.path`; `?timeout=<n>s` appended; the server's certificate verified against `caBundle` (else the
 * system roots) and, for a service, against the name `<service>.<namespace>.svc` as kube-apiserver checks it; the
 * request aborted after `timeoutSeconds`. Transport failures, non-200 answers and bodies that are not JSON are
 * {@link WebhookCallError}s, the errors kube words `failed calling webhook "<name>": ...` and to which failurePolicy
 * applies.
 *
 * The request goes over kubeop's own HTTP/1.1 connection (runtime/http/http1_pool.ts, TLS by
 * runtime/http/tls_dial.ts), which accepts what Go's crypto/tls accepts where Deno's fetch (rustls) does not: a
 * self-signed certificate that is its own CA (`openssl req -x509 ... -addext subjectAltName=IP:127.0.0.1` marks it
 * CA:TRUE; rustls refuses it with CaUsedAsEndEntity) and a TLS server name other than the host dialled.
 * @module
 */
import { Http1Pool } from "../../runtime/http/http1_pool.ts";
import type { TlsOptions } from "../../runtime/http/tls_dial.ts";
import { resolveService } from "./apiservice_controller.ts";
import type { FakeStore } from "./commit_path.ts";

/** admissionregistration/v1 WebhookClientConfig (also a CRD conversion webhook's `clientConfig`). */
export interface WebhookClientConfig {
  url?: string;
  service?: { name: string; namespace: string; path?: string; port?: number };
  /** Base64 PEM bundle the server's certificate must chain to. */
  caBundle?: string;
}

/** The call did not produce a usable answer (kube: webhookutil.ErrCallingWebhook); failurePolicy decides. */
export class WebhookCallError extends Error {
  /** `failed calling webhook "<name>": <reason>`. */
  constructor(readonly webhookName: string, readonly reason: string) {
    super(`failed calling webhook ${JSON.stringify(webhookName)}: ${reason}`);
    this.name = "WebhookCallError";
  }
}

/**
 * The most specific text of a fetch failure (Deno's `fetch failed` carries the transport error as its cause), in Go's
 * words where kube-apiserver's are known.
 */
function transportError(err: unknown, url: URL): string {
  const cause = (err as { cause?: unknown }).cause;
  const text = cause instanceof Error ? cause.message : (err as Error).message;
  const code = String((cause as { code?: unknown } | undefined)?.code ?? "");
  // Go's words for the two failures tests meet most (net.OpError, crypto/tls + crypto/x509).
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  if (/connection refused/i.test(text)) return `dial tcp ${url.hostname}:${port}: connect: connection refused`;
  if (UNTRUSTED.has(code) || /UnknownIssuer|BadSignature/.test(text)) {
    return "tls: failed to verify certificate: x509: certificate signed by unknown authority";
  }
  return text;
}

/** node:tls codes (runtime/http/tls_dial.ts) of a chain no trusted CA signs: Go's "signed by unknown authority". */
const UNTRUSTED = new Set([
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
]);

/** The URL a client config reaches (with `?timeout=`), or why it cannot be resolved. */
export function webhookUrl(
  store: FakeStore,
  config: WebhookClientConfig,
  timeoutSeconds: number,
): { url: string } | { error: string } {
  let base: string;
  if (config.url) {
    base = config.url;
  } else if (config.service?.name && config.service.namespace) {
    const svc = config.service;
    const resolved = resolveService(store, { spec: { service: { ...svc, port: svc.port ?? 443 } } } as never);
    if (!("url" in resolved)) return { error: resolved.message };
    base = resolved.url + (svc.path ?? "");
  } else {
    return { error: "clientConfig names neither url nor service" };
  }
  try {
    const url = new URL(base);
    url.searchParams.set("timeout", `${timeoutSeconds}s`);
    return { url: url.toString() };
  } catch {
    return { error: `parse ${JSON.stringify(base)}: invalid URL` };
  }
}

/**
 * POSTs `review` to the webhook and answers the decoded JSON body; throws {@link WebhookCallError} when the webhook
 * is unresolvable, unreachable, slower than `timeoutSeconds`, answers other than 200 or not JSON.
 */
export async function postReview(
  store: FakeStore,
  name: string,
  config: WebhookClientConfig,
  review: unknown,
  timeoutSeconds: number,
): Promise<Record<string, unknown>> {
  const target = webhookUrl(store, config, timeoutSeconds);
  if ("error" in target) throw new WebhookCallError(name, `failed to call webhook: ${target.error}`);
  let caPEM: string | undefined;
  if (config.caBundle) {
    try {
      caPEM = atob(config.caBundle);
    } catch {
      throw new WebhookCallError(name, "failed to call webhook: caBundle is not base64");
    }
  }
  const tls: TlsOptions = {
    ...(caPEM ? { caCerts: [caPEM] } : {}),
    // kube-apiserver verifies a service webhook's certificate for the Service's DNS name, whatever host it dials.
    ...(config.service && !config.url ? { serverName: `${config.service.name}.${config.service.namespace}.svc` } : {}),
  };
  const pool = new Http1Pool({ tls });
  const post = `Post ${JSON.stringify(target.url)}`;
  /** A failed send or body read, worded as kube-apiserver words it. */
  const callFailed = (err: unknown) => {
    const timedOut = err instanceof DOMException && err.name === "TimeoutError";
    const why = timedOut ? "context deadline exceeded" : transportError(err, new URL(target.url));
    return new WebhookCallError(name, `failed to call webhook: ${post}: ${why}`);
  };
  try {
    let res: { status: number; body: Uint8Array };
    try {
      res = await pool.request({
        method: "POST",
        url: new URL(target.url),
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        body: JSON.stringify(review),
        signal: AbortSignal.timeout(timeoutSeconds * 1000),
      });
    } catch (err) {
      throw callFailed(err);
    }
    const text = new TextDecoder().decode(res.body);
    if (res.status !== 200) {
      throw new WebhookCallError(
        name,
        `failed to call webhook: the server responded with the status code ${res.status} but did not return more information`,
      );
    }
    try {
      const body = JSON.parse(text);
      if (body && typeof body === "object" && !Array.isArray(body)) return body;
    } catch {
      // reported below
    }
    throw new WebhookCallError(name, "received invalid webhook response: the body is not a JSON object");
  } finally {
    pool.close();
  }
}
