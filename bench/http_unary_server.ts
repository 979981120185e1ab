/**
 * The server of http_unary_cpu_bench.ts, in its own process so its CPU is not the client's: Deno.serve over TLS on
 * 127.0.0.1 answering every request with a small Kubernetes-like JSON object (its body read first). Reads the
 * certificate and key PEM from stdin as JSON `{certPEM, keyPEM}`, prints the port on stdout.
 *
 * Run: (spawned by http_unary_cpu_bench.ts)
 * @module
 */

const { certPEM, keyPEM } = JSON.parse(await new Response(Deno.stdin.readable).text());
const answer = JSON.stringify({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "bench", namespace: "default", resourceVersion: "12345", uid: crypto.randomUUID() },
  data: { key: "value".repeat(20) },
});
Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  cert: certPEM,
  key: keyPEM,
  onListen: ({ port }) => console.log(port),
}, async (req) => {
  await req.arrayBuffer();
  return new Response(answer, { headers: { "content-type": "application/json" } });
});
