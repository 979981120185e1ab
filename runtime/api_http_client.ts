/**
 * The HTTP client of KubeClient's unary requests (client.ts).
 * @module
 */

/**
 * The HTTP client of the unary requests (watches use http_transport.ts `openHttpStream`): HTTP/1.1 with a
 * keep-alive pool, one connection per request in flight, never HTTP/2. Under Deno's fetch, HTTP/2 (negotiated by ALPN with
 * kube-apiserver, every request multiplexed on one connection) cost more per request: client-go's write loop redone
 * with this client (3 creates, a status patch and an Event per Machine, 4 in flight, one kube-apiserver) took
 * 5.4–6.9 s and 0.79–0.94 CPU s per 400 Machines over HTTP/2, 4.7–5.0 s and 0.67–0.68 over HTTP/1.1 (bench/README.md).
 * `caPEM` is trusted in addition to the default roots; `clientCert` authenticates the client.
 */
export function createApiHttpClient(
  caPEM: string | undefined,
  clientCert?: { certPEM: string; keyPEM: string },
): Deno.HttpClient {
  return Deno.createHttpClient({
    http1: true,
    http2: false,
    caCerts: caPEM ? [caPEM] : undefined,
    ...(clientCert ? { cert: clientCert.certPEM, key: clientCert.keyPEM } : {}),
  } as Deno.CreateHttpClientOptions);
}
