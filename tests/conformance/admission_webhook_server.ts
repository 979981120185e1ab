/**
 * The conformance cases' admission webhook: a small HTTPS server on 127.0.0.1 (its own CA from runtime/http/pki.ts; the
 * serving certificate names 127.0.0.1, localhost and the Service DNS names a service webhook is verified against)
 * answering AdmissionReview v1 per path with the case's handler, and recording every request it got.
 * @module
 */
import type { AdmissionRequest, AdmissionResponse, AdmissionReview } from "../../runtime/webhook/review_types.ts";
import { createCA } from "../../runtime/http/pki.ts";

/** What a handler answers: the response without uid (filled in), or a raw HTTP response. */
export type ReviewHandler = (
  req: AdmissionRequest,
) => Omit<AdmissionResponse, "uid"> | Response | Promise<Omit<AdmissionResponse, "uid"> | Response>;

/** A running test webhook. */
export interface TestWebhook {
  port: number;
  /** Base64 PEM of the CA that signed the serving certificate (a webhook's `caBundle`). */
  caBundle: string;
  /** `https://127.0.0.1:<port><path>`. */
  url(path: string): string;
  /** Requests received, by path. */
  received(path: string): AdmissionRequest[];
  stop(): Promise<void>;
}

/** JSON patch ops as the base64 `patch` of a response. */
export function jsonPatch(ops: unknown[]): Pick<AdmissionResponse, "patch" | "patchType"> {
  return { patch: btoa(JSON.stringify(ops)), patchType: "JSONPatch" };
}

/**
 * An HTTPS server on 127.0.0.1 (a free port) whose certificate, for 127.0.0.1, localhost and `extraHosts`, is signed
 * by its own new CA `<name>-ca`; `caBundle` is that CA's PEM in base64 (a webhook's `caBundle`).
 */
export async function serveWithOwnCA(
  name: string,
  extraHosts: string[],
  handler: (req: Request) => Response | Promise<Response>,
): Promise<{ server: Deno.HttpServer<Deno.NetAddr>; caBundle: string }> {
  const ca = await createCA({ commonName: `${name}-ca` });
  const serving = await ca.issue({
    commonName: name,
    hosts: ["127.0.0.1", "localhost", ...extraHosts],
    usage: "server",
  });
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    cert: serving.certPEM,
    key: serving.keyPEM,
    onListen: () => {},
  }, handler);
  return { server, caBundle: btoa(ca.certPEM) };
}

/** Starts an HTTPS server of `handler` on 127.0.0.1 whose certificate names 127.0.0.1, localhost and `hosts`. */
export type ServeTls = (
  name: string,
  hosts: string[],
  handler: (req: Request) => Response | Promise<Response>,
) => Promise<{ server: Deno.HttpServer<Deno.NetAddr>; caBundle: string }>;

/**
 * Starts the webhook; `serviceHosts` are extra DNS names for its certificate (`<svc>.<ns>.svc`); `serve` makes its
 * certificate (default: signed by its own CA).
 */
export async function startTestWebhook(
  handlers: Record<string, ReviewHandler>,
  serviceHosts: string[] = [],
  serve: ServeTls = serveWithOwnCA,
): Promise<TestWebhook> {
  const received = new Map<string, AdmissionRequest[]>();
  const { server, caBundle } = await serve("conformance-webhook", serviceHosts, async (req) => {
    const path = new URL(req.url).pathname;
    const handler = handlers[path];
    if (!handler) return new Response("no such webhook", { status: 404 });
    const review = await req.json() as AdmissionReview;
    const request = review.request!;
    (received.get(path) ?? received.set(path, []).get(path)!).push(request);
    const answer = await handler(request);
    if (answer instanceof Response) return answer;
    const body: AdmissionReview = {
      apiVersion: "admission.k8s.io/v1",
      kind: "AdmissionReview",
      response: { uid: request.uid, ...answer },
    };
    return Response.json(body);
  });
  const port = server.addr.port;
  return {
    port,
    caBundle,
    url: (path) => `https://127.0.0.1:${port}${path}`,
    received: (path) => received.get(path) ?? [],
    stop: async () => {
      await server.shutdown();
    },
  };
}
